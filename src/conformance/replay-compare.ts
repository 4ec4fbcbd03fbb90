/** How a replayed run is held against its recording: turn by turn, entity by entity. */
import type { RecordedEntity, RecordedTree } from "../llm/providers/replay.js";
import type { Turn } from "../loom/records/index.js";

/** The first way `actual` differs from `recorded`, turn by turn; null when it reproduces it. */
export function compareThreads(recorded: readonly Turn[], actual: readonly Turn[]): string | null {
  for (let i = 0; i < Math.max(recorded.length, actual.length); i++) {
    const want = recorded[i];
    const got = actual[i];
    const at = `turn ${i + 1}`;
    if (!want)
      return `${at}: the replayed run has more turns than the recording (${actual.length} vs ${recorded.length})`;
    if (!got)
      return `${at}: the replayed run ended after ${actual.length} turns; the recording has ${recorded.length}`;
    if (want.gate_calls.length !== got.gate_calls.length) {
      return `${at}: ${got.gate_calls.length} gate calls, recorded ${want.gate_calls.length}`;
    }
    for (let j = 0; j < want.gate_calls.length; j++) {
      const w = want.gate_calls[j]!;
      const g = got.gate_calls[j]!;
      for (const key of ["gate_name", "arguments", "result", "is_error"] as const) {
        if (w[key] !== g[key]) {
          return `${at}, gate call ${j + 1} (${w.gate_name}): ${key} ${JSON.stringify(g[key])}, recorded ${JSON.stringify(w[key])}`;
        }
      }
    }
    for (const key of ["terminated", "truncated", "reason"] as const) {
      if (want[key] !== got[key])
        return `${at}: ${key} ${JSON.stringify(got[key])}, recorded ${JSON.stringify(want[key])}`;
    }
    if ((want.is_error ?? false) !== (got.is_error ?? false))
      return `${at}: is_error ${String(got.is_error ?? false)}, recorded ${String(want.is_error ?? false)}`;
  }
  return null;
}

const replayedTurn = (t: Turn | undefined): unknown => t?.metadata["replayed_turn"];

/**
 * Every recorded entity against the replayed one that took its replies (the turns say which:
 * `metadata.replayed_turn`): each child's thread, which must hang under the replay of the turn
 * that spawned it, then the root's. A recorded child that made no entity in the replay, or a
 * replayed entity the recording does not have, is a difference too.
 */
export function compareTree(
  tree: RecordedTree,
  turns: readonly Turn[],
  rootId: string,
): string | null {
  const byEntity = new Map<string, Turn[]>();
  const byId = new Map(turns.map((t) => [t.id, t]));
  for (const t of turns) byEntity.set(t.entity_id, [...(byEntity.get(t.entity_id) ?? []), t]);
  const recordedOf = new Map<string, RecordedEntity>(); // recorded entity id → its record
  for (const e of [tree.root, ...tree.descendants]) recordedOf.set(e.id, e);
  const entityOfTurn = new Map<string, string>();
  for (const e of [tree.root, ...tree.descendants])
    for (const t of e.turns) entityOfTurn.set(t.id, e.id);
  const matched = new Set<string>([tree.root.id]);
  for (const [id, list] of byEntity) {
    if (id === rootId) continue;
    const own = list.map(replayedTurn).find((v): v is string => typeof v === "string");
    const recorded = own ? recordedOf.get(entityOfTurn.get(own) ?? "") : undefined;
    if (!recorded)
      return `the replayed run spawned an entity the recording does not have (${list.length} turns, first: ${JSON.stringify(list[0]!.utterance.slice(0, 60))})`;
    matched.add(recorded.id);
    const sorted = [...list].sort((a, b) => a.sequence - b.sequence);
    const parent = replayedTurn(byId.get(sorted[0]!.parent_id ?? ""));
    if (parent !== recorded.spawnedBy)
      return `child ${recorded.id}: spawned under another turn than recorded (${String(parent)}, recorded ${String(recorded.spawnedBy)})`;
    const diff = compareThreads(recorded.turns, sorted);
    if (diff) return `child ${recorded.id}: ${diff}`;
  }
  // The root last: a child's difference is the cause of the parent's (the value it returned).
  const rootDiff = compareThreads(tree.root.turns, byEntity.get(rootId) ?? []);
  if (rootDiff) return rootDiff;
  const missing = tree.descendants.filter((e) => !matched.has(e.id) && e.replies.length > 0);
  if (missing.length)
    return `the replayed run did not spawn ${missing.length} recorded child${missing.length === 1 ? "" : "ren"} (${missing.map((e) => e.id).join(", ")})`;
  return null;
}
