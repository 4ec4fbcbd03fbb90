/**
 * Which entity `spell summon FILE` summons: the one `--entity` names, the spell's last in the
 * loom with `--continue`, or — seed 002's re-summoning — the spell's only entity in the loom the
 * spell itself names (`loom.path`, no `--loom`) unless `--new`; else a new one. And the
 * `resume:` hint in the form that works for the entity summoned.
 */
import { resolve } from "node:path";
import { shownLoom } from "../loom/open/index.js";
import type { LoadedSpell } from "../spell/index.js";
import type { CliIO } from "./io.js";
import { entitiesOf, lastEntityOf } from "./last-entity.js";

export interface TargetFlags {
  entity?: string | undefined;
  continue?: boolean | undefined;
  new?: boolean | undefined;
  loom?: string | undefined;
}

/** The loom file the spell itself names (`loom.path`, no `--loom`): re-summoning goes on there. */
export interface NamedLoom {
  path: string;
  /** The spell file, resolved (the loom's index names it so). */
  file: string;
}

/** The entity to continue (undefined: a new one) and the loom the spell names, if it does. */
export async function summonTarget(
  loaded: LoadedSpell,
  flags: TargetFlags,
  io: CliIO,
): Promise<{ id: string | undefined; named: NamedLoom | undefined; picked?: true }> {
  const { location, file, shared } = loaded.cantrip!.loom.store;
  const named = namedLoom(loaded, flags);
  if (flags.continue) {
    // Which entities are the spell's is kept beside a loom file (its state file), and by a
    // database in a table of its own (docs/design/LOOM-STORES.md, `loom_entity_spells`).
    const id =
      file !== undefined
        ? lastEntityOf(loaded.file, file)
        : (await shared?.entitiesOfSpell?.(resolve(loaded.file)))?.at(-1);
    if (id === undefined)
      io.stderr(`no earlier entity of ${loaded.file} in ${location}: summoned a new one\n`);
    return { id, named };
  }
  if (flags.entity !== undefined || !named || flags.new) return { id: flags.entity, named };
  const ids = entitiesOf(named.file, named.path);
  if (ids.length === 1) {
    io.stderr(
      `continuing the entity of ${loaded.file} in its loom ${named.path} (--new starts a fresh one)\n`,
    );
    return { id: ids[0], named, picked: true };
  }
  if (ids.length > 1)
    io.stderr(
      `${ids.length} entities of ${loaded.file} in ${named.path}: summoned a new one (--continue goes on with the last, --entity ID with another)\n`,
    );
  return { id: undefined, named };
}

/**
 * Notes, in a database, that this summon started or continued the entity (what `--continue`
 * reads there); a loom file's state file got its entry when the entity was summoned.
 */
export async function noteSpellEntity(loaded: LoadedSpell, entityId: string): Promise<void> {
  await loaded.cantrip!.loom.store.shared?.noteEntitySpell?.(entityId, resolve(loaded.file));
}

function namedLoom(loaded: LoadedSpell, flags: TargetFlags): NamedLoom | undefined {
  const path = loaded.cantrip?.loom.store.file;
  const named = flags.loom === undefined && loaded.spell.loom?.path !== undefined;
  return named && path !== undefined ? { path, file: loaded.file } : undefined;
}

/**
 * How to continue the entity, in the form that works now: the bare `spell summon FILE` when
 * the spell names its loom and this is the only entity of the spell there; `--continue` after a
 * `--continue` (this entity is then the spell's last); else `--entity ID`.
 */
export function resumeHint(
  spellPath: string,
  entityId: string,
  flags: TargetFlags,
  named: NamedLoom | undefined,
): string {
  const { loom } = flags;
  if (loom === "memory") return "none (a memory loom: the entity ends with the session)";
  let only = false;
  try {
    only = named !== undefined && entitiesOf(named.file, named.path).join() === entityId;
  } catch {
    only = false; // an unreadable index: the explicit form below works regardless
  }
  if (only) return `spell summon ${spellPath}`;
  const which = flags.continue ? "--continue" : `--entity ${entityId}`;
  // A database URL's password is shown as *** (a hint is printed, and logs keep it).
  return `spell summon ${spellPath} ${which}${loom === undefined ? "" : ` --loom ${shownLoom(loom)}`}`;
}
