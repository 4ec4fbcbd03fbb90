/**
 * LOOM-11: an entity's own thread as plain data, for the code medium's read-only `loom` object.
 * Read from the loom when asked (nothing is done per turn): the turns from the entity's first one
 * to its last — a fork's inherited prefix included (it is the fork's context), a spawning
 * parent's turns not (they are the parent's).
 */
import type { GateCallRecord } from "./medium.js";
import type { LoomWriter, ThreadTurn } from "./loom-writer.js";

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

/**
 * Reads an entity's thread back from the loom, walking parent links from the newest turn to the
 * last one it read before: a read costs the turns added since, not the thread's length.
 */
export class ThreadReader {
  private readonly seen: ThreadTurn[] = [];

  constructor(
    /** The turn the entity hangs from when it is not part of its thread (a child's spawning turn). */
    private readonly above: string | null,
  ) {}

  read(
    loom: LoomWriter,
    leaf: string | null,
    known: number,
    foldedSummary: string | null,
  ): LoomThreadView {
    const last = this.seen.at(-1)?.id ?? this.above;
    const fresh: ThreadTurn[] = [];
    for (let id = leaf; id !== null && id !== last;) {
      const turn = loom.get?.(id);
      if (!turn) break;
      fresh.push(turn);
      id = turn.parent_id;
    }
    for (let i = fresh.length - 1; i >= 0; i--) this.seen.push(fresh[i]!);
    const turns: LoomTurnView[] = [];
    for (let i = known; i < this.seen.length; i++) turns.push(view(this.seen[i]!));
    return { turns, folded_summary: foldedSummary };
  }
}

function view(t: ThreadTurn): LoomTurnView {
  return {
    id: t.id,
    sequence: t.sequence,
    entity_id: t.entity_id,
    utterance: t.utterance,
    observation: t.observation,
    gate_calls: t.gate_calls.map((g) => ({ ...g })),
    is_error: t.is_error === true,
  };
}

/** The entity's signal and the send's, as one (either stops the cast, with its reason). */
export function castSignal(
  entity: AbortSignal | undefined,
  send: AbortSignal | undefined,
): AbortSignal | undefined {
  if (!entity || !send) return entity ?? send;
  return AbortSignal.any([entity, send]);
}
