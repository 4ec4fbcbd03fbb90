/**
 * `spell summon FILE --continue`: the entity to continue is the last one summoned from that
 * spell file against that loom — the one whose entry in the loom's state file changed last.
 */
import { resolve } from "node:path";
import { readState } from "../loom/entities/index.js";

/** The id of the spell's most recently updated entity in the loom file, if it has one. */
export function lastEntityOf(spellFile: string, loomPath: string): string | undefined {
  return entitiesOf(spellFile, loomPath).at(-1);
}

/**
 * The spell's entities in the loom file, the most recently updated last (`spell summon FILE`
 * continues the only one of a spell that names its loom).
 */
export function entitiesOf(spellFile: string, loomPath: string): string[] {
  if (loomPath === "memory") return [];
  const state = readState(loomPath);
  const spell = resolve(spellFile);
  const found: { id: string; updated: string }[] = [];
  for (const [id, entry] of Object.entries(state.entities))
    if (entry.spell === spell) found.push({ id, updated: entry.updated });
  // Stable: of two updated at the same moment, the later entry stays last (as before).
  return found
    .sort((a, b) => (a.updated < b.updated ? -1 : a.updated > b.updated ? 1 : 0))
    .map((e) => e.id);
}
