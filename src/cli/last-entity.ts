/**
 * `spell summon FILE --continue`: the entity to continue is the last one summoned from that
 * spell file against that loom — the one whose entry in the loom's state file changed last.
 */
import { resolve } from "node:path";
import { readState } from "../loom/entity-keeper.js";

/** The id of the spell's most recently updated entity in the loom file, if it has one. */
export function lastEntityOf(spellFile: string, loomPath: string): string | undefined {
  if (loomPath === "memory") return undefined;
  const state = readState(loomPath);
  const spell = resolve(spellFile);
  let last: { id: string; updated: string } | undefined;
  for (const [id, entry] of Object.entries(state.entities)) {
    if (entry.spell !== spell) continue;
    if (!last || entry.updated >= last.updated) last = { id, updated: entry.updated };
  }
  return last?.id;
}
