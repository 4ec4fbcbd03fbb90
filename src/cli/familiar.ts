/**
 * `spell familiar [DIR]`: the packaged Familiar (spells/familiar.yaml, seed 002 "Familiar",
 * spec A.12) summoned on a workspace as an interactive session — the session loop of
 * `spell summon`. Its gates are rooted at DIR and its loom is DIR/.spellbook/familiar.jsonl, so
 * running it again on the same folder continues the same entity, whose earlier turns come back.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readLoomFile } from "../loom/stores/index.js";
import { EXIT } from "./io.js";
import { runSummon, type SummonFlags, type SummonIO } from "./summon.js";

/** Where the Familiar keeps its loom, relative to the workspace (the spell's `loom.path`). */
export const FAMILIAR_LOOM = join(".spellbook", "familiar.jsonl");

export type FamiliarFlags = Omit<SummonFlags, "entity" | "baseDir">;

/** The packaged spell: found upwards from this module (src/cli, dist/cli, or the bundle in dist). */
export function familiarSpellPath(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "spells", "familiar.yaml");
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`spells/familiar.yaml not found above ${from}`);
  }
}

/**
 * The entity to continue: the one with the latest turn among the loom's root entities (those
 * nobody spawned — a child's or a fork's first turn has a parent in another entity).
 */
export function familiarEntity(loomPath: string): string | undefined {
  if (!existsSync(loomPath)) return undefined;
  const firstParent = new Map<string, string | null>();
  let latest: string | undefined;
  for (const record of readLoomFile(loomPath).records) {
    if (record.type !== "turn") continue;
    if (!firstParent.has(record.entity_id)) firstParent.set(record.entity_id, record.parent_id);
    if (firstParent.get(record.entity_id) === null) latest = record.entity_id;
  }
  return latest;
}

export async function familiarCommand(
  dir: string | undefined,
  flags: FamiliarFlags,
  io: SummonIO,
): Promise<number> {
  const workspace = resolve(io.cwd, dir ?? ".");
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) {
    io.stderr(`spell familiar: ${dir ?? "."} is not a folder\n`);
    return EXIT.invalid;
  }
  const loomPath =
    flags.loom === undefined ? join(workspace, FAMILIAR_LOOM) : resolve(io.cwd, flags.loom);
  const entity = flags.loom === "memory" ? undefined : familiarEntity(loomPath);
  io.stderr(`the Familiar, on ${workspace}\n`);
  return runSummon(
    familiarSpellPath(),
    // The Familiar chose its entity (the latest root entity of its loom) or a new one itself.
    { ...flags, baseDir: workspace, ...(entity === undefined ? { new: true } : { entity }) },
    io,
    // A memory loom keeps nothing to continue: the session's own hint says so.
    { resumeHint: () => (flags.loom === "memory" ? undefined : `spell familiar ${dir ?? "."}`) },
  );
}
