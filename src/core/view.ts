/**
 * The view step: between an entity's history and the query sits one function that builds what
 * the LLM is sent. The history (and the loom) keep everything; a view may show less — folding
 * (§6.8, core/folding.ts) replaces older turns with a summary here. The default shows the
 * history as it is, at no cost per turn.
 */
import type { Message, Usage } from "./contract.js";

/** Where one recorded turn of this entity begins in its history. */
export interface TurnMark {
  readonly id: string;
  /** The turn's sequence number in the loom (1, 2, …). */
  readonly sequence: number;
  /** Index in the history of the turn's first message (its assistant message). */
  readonly start: number;
}

/** What a fold covered, as the loom records it (LOOM-5: the turns themselves stay). */
export interface FoldRecord {
  entityId: string;
  /** First and last folded turn (sequence numbers) and their ids. */
  fromSequence: number;
  toSequence: number;
  fromTurnId: string;
  toTurnId: string;
  summary: string;
  strategy: string;
  /** The estimate of the context that triggered the fold, in tokens. */
  estimatedTokens: number;
}

export interface ViewContext {
  readonly entityId: string;
  /** Turns the entity has recorded so far, across its casts. */
  readonly turns: number;
  /** Where each turn of this entity begins in the history, in order. */
  readonly marks: readonly TurnMark[];
  /** Index in the history of the current cast's intent (kept in view whatever is folded). */
  readonly intentIndex: number;
  /** Usage reported by the entity's last query, or null before the first. */
  readonly lastUsage: Usage | null;
  /** Records a fold in the loom. */
  recordFold(fold: FoldRecord): void;
}

/** A view may need a query of its own (an LLM-written fold summary), hence the promise. */
export type ContextView = (
  history: readonly Message[],
  context: ViewContext,
) => readonly Message[] | Promise<readonly Message[]>;

/** The history as it is: no copy, no cost. */
export const wholeHistory: ContextView = (history) => history;
