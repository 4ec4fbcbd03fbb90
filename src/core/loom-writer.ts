/**
 * Where the loop records (chapter 6), owned by the ground floor: the loom module implements it
 * and builds the records; core never imports the loom.
 */
import type { Usage } from "./contract.js";
import type { GateCallRecord } from "./medium.js";
import type { TurnOutcome } from "./outcome.js";
import type { FoldRecord } from "./view.js";

/** A turn's place in the tree. */
export interface TurnHead {
  id: string;
  /** The turn before it in this thread; null at a root (LOOM-2). */
  parentId: string | null;
  cantripId: string;
  entityId: string;
  sequence: number;
}

/** What a turn holds: the medium's side of it. */
export interface TurnContent {
  utterance: string;
  observation: string;
  gateCalls: GateCallRecord[];
  isError?: boolean;
}

/** What a turn cost, and anything a provider reported besides (LLM-6). */
export interface TurnCost {
  usage: Usage;
  durationMs: number;
  extra: Readonly<Record<string, unknown>> | undefined;
}

/** A recorded turn as a reading loom gives it back (the loom's record, snake_case). */
export interface ThreadTurn {
  id: string;
  parent_id: string | null;
  sequence: number;
  entity_id: string;
  utterance: string;
  observation: string;
  gate_calls: GateCallRecord[];
  is_error?: boolean;
}

export interface LoomWriter {
  /** The root context of a cantrip, once per cantrip (IDENTITY-4). */
  recordIdentity(
    cantripId: string,
    identity: Record<string, unknown>,
    tools: string[],
    medium: string,
  ): void;
  /**
   * One turn; on the store before the next turn begins (LOOM-1). The head and cost are read
   * during the call, not kept: the loop refills the same objects for the next turn.
   */
  recordTurn(head: TurnHead, content: TurnContent, cost: TurnCost, outcome: TurnOutcome): void;
  /** A fold of the view sent to the LLM (§6.8): which turns, and the summary that replaced them. */
  recordFold?(cantripId: string, fold: FoldRecord): void;
  /** A recorded turn, for a loom that can read back what it recorded. */
  get?(turnId: string): ThreadTurn | undefined;
}
