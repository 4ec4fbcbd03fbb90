import { cutQuote } from "../../core/cut-quote.js";
import type { CastTruncated } from "../../core/result.js";

/** The longest last utterance handed back; the child's full turns stay in the loom. */
export const LAST_UTTERANCE_CHARS = 2000;

/**
 * What call_entity returns for a child a ward cut off (COMP-2, LOOP-4): a value, not an error,
 * so the parent reads how far the child got and goes on in the same turn. Only a child that
 * fails is an error to its parent (COMP-8). Snake_case: the entity reads it as data.
 */
export interface TruncatedChild {
  truncated: true;
  /** The ward or cause: max_turns, timeout_ms, max_tokens, parent_terminated, … */
  reason: string;
  /** Turns the child took. */
  turns: number;
  /** LOOP-4: what the child did before it was cut off (turns, gates called, last utterance). */
  summary: string;
  /** What the child said last (text, code or gate calls), capped; absent when it said nothing. */
  last_utterance?: string;
  /** The child's entity: its turns are a subtree of the loom under the parent's turn (COMP-5). */
  entity_id: string;
}

export function truncatedChild(result: CastTruncated<unknown>): TruncatedChild {
  const last = result.lastUtterance;
  return {
    truncated: true,
    reason: result.reason,
    turns: result.turns,
    summary: result.result,
    ...(last
      ? {
          last_utterance: cutQuote(last, LAST_UTTERANCE_CHARS),
        }
      : {}),
    entity_id: result.entityId,
  };
}
