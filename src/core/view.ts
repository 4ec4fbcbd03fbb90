/**
 * The view step: between an entity's history and the query sits one function that builds what
 * the LLM is sent. The history (and the loom) keep everything; a view may show less — folding
 * (§6.8) replaces older turns with a summary here. The default shows the history as it is, at
 * no cost per turn.
 */
import type { Message } from "./contract.js";

export interface ViewContext {
  readonly entityId: string;
  /** Turns the entity has recorded so far, across its casts. */
  readonly turns: number;
}

export type ContextView = (history: readonly Message[], context: ViewContext) => readonly Message[];

/** The history as it is: no copy, no cost. */
export const wholeHistory: ContextView = (history) => history;
