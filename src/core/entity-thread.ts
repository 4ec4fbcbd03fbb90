/**
 * LOOM-11: an entity's own thread as plain data, for the code medium's read-only `loom` object.
 * Read from the loom when asked (never kept per turn): the turns from the entity's first one
 * to its last — a fork's inherited prefix included (it is the fork's context), a spawning
 * parent's turns not (they are the parent's).
 */
import type { GateCallRecord } from "./medium.js";
import type { ThreadTurn } from "./loom-writer.js";

/** One turn as the sandbox reads it (the loom's own snake_case names). */
export interface LoomTurnView {
  id: string;
  sequence: number;
  entity_id: string;
  utterance: string;
  observation: string;
  gate_calls: GateCallRecord[];
  is_error: boolean;
}

export interface LoomThreadView {
  /** The entity's turns after the first `known`, in order. */
  turns: LoomTurnView[];
  /** The summary of the current fold of the entity's view, if it folded (§6.8). */
  folded_summary: string | null;
}

export function threadView(
  thread: readonly ThreadTurn[],
  /** The turn the entity hangs from when it is not part of its thread (a child's spawning turn). */
  above: string | null,
  known: number,
  foldedSummary: string | null,
): LoomThreadView {
  let start = 0;
  if (above !== null) start = thread.findIndex((t) => t.id === above) + 1;
  const turns: LoomTurnView[] = [];
  for (let i = start + known; i < thread.length; i++) {
    const t = thread[i]!;
    turns.push({
      id: t.id,
      sequence: t.sequence,
      entity_id: t.entity_id,
      utterance: t.utterance,
      observation: t.observation,
      gate_calls: t.gate_calls.map((g) => ({ ...g })),
      is_error: t.is_error === true,
    });
  }
  return { turns, folded_summary: foldedSummary };
}
