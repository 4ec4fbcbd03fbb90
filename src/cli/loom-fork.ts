/**
 * `spell loom fork LOOM --turn ID|SEQ`: the library's `fork()` from the shell (LOOM-4, seed 002's
 * "fork from any prior turn, bindings restored"). The turn is found by its id, or by its sequence
 * in an entity (`--entity`, needed when the loom holds more than one); the spell to fork with is
 * the one the entity was summoned or run from (its entry beside the loom), or `--spell`. Each of
 * `--times N` forks is a new entity whose context is the thread root→turn — the code medium's
 * variables rebuilt by replay, gates answered from the loom — continuing with `--intent` (default:
 * the intent of the cast the turn belongs to), on the spell's LLM or `--llm`. One line a fork on
 * stdout (its entity and last turn, to reward), or `--json`.
 */
import { resolve } from "node:path";
import { ConfigError, errorMessage } from "../core/errors.js";
import { redactedJson, redactedText } from "../core/redact-stream.js";
import type { CastResult } from "../core/result.js";
import { fork, readThreadInto } from "../loom/core/index.js";
import { readState } from "../loom/entities/index.js";
import type { Loom } from "../loom/core/index.js";
import { readLoomFile, type LoomStore } from "../loom/stores/index.js";
import type { Turn } from "../loom/records/index.js";
import { resultJson } from "../protocols/result-json.js";
import { spellOf, type LoadedSpell } from "../spell/index.js";
import { displayPath, EXIT, print, type CliIO } from "./io.js";
import { exitFor, loadForCast, printWarnings } from "./load.js";
import { openLoomArg } from "./loom-export.js";
import { progressLines } from "./progress.js";
import { liveDisplay } from "./stream-text.js";

export interface LoomForkFlags {
  /** A turn id, or a sequence number in the entity. */
  turn: string;
  entity?: string | undefined;
  intent?: string | undefined;
  /** `provider/model` instead of the spell's LLM. */
  llm?: string | undefined;
  /** How many forks, each a new entity; default 1. */
  times?: number | undefined;
  /** The spell to fork with; default the one recorded beside the loom for the entity. */
  spell?: string | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
}

/** The turn to fork from, its entity's spell and the intent to continue with. */
interface ForkPoint {
  turn: Turn;
  spell: string;
  intent: string;
}

export async function loomForkCommand(
  file: string,
  flags: LoomForkFlags,
  io: CliIO,
): Promise<number> {
  const times = flags.times ?? 1;
  if (!Number.isSafeInteger(times) || times < 1) {
    io.stderr(`--times ${flags.times}: give a whole number of forks, 1 or more\n`);
    return EXIT.invalid;
  }
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  // The loom a fork appends to: the file, or the database's URL (its password redacted only
  // where it is printed: `location`).
  const loom = store.file ?? file;
  let point: ForkPoint;
  try {
    point = await forkPoint(store, flags, io.cwd);
  } catch (err) {
    io.stderr(`spell loom fork: ${redactor.redact(errorMessage(err))}\n`);
    return exitFor(err);
  } finally {
    await store.close();
  }
  const doc = await loadForCast(point.spell, { loom, llm: flags.llm }, io);
  if (typeof doc === "number") return doc;
  let loaded: LoadedSpell;
  try {
    loaded = spellOf(doc);
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return exitFor(err);
  }
  printWarnings(loaded, io);
  try {
    // A database's loom: the thread to fork from is read into the spell's loom first.
    await readThreadInto(loaded.cantrip!.loom, point.turn.id);
    return await forkTimes(loaded, point, times, flags, io);
  } finally {
    loaded.cantrip!.loom.close();
  }
}

async function forkTimes(
  loaded: LoadedSpell,
  point: ForkPoint,
  times: number,
  flags: LoomForkFlags,
  io: CliIO,
): Promise<number> {
  const cantrip = loaded.cantrip!;
  const redact = (t: string) => loaded.redactor.redact(t);
  const location = cantrip.loom.store.location;
  let failed = false;
  for (let i = 1; i <= times; i++) {
    const display =
      flags.quiet || flags.json
        ? undefined
        : liveDisplay(io.stderr, loaded.redactor, progressLines());
    let result: CastResult<Loom>;
    try {
      result = await fork(cantrip, point.turn.id, {
        intent: point.intent,
        ...(display ? { onEvent: display } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
      });
    } catch (err) {
      io.stderr(redact(`spell loom fork: ${errorMessage(err)}\n`));
      return exitFor(err);
    }
    if (result.status === "failed") {
      failed = true;
      io.stderr(redact(`fork ${i} failed: ${errorMessage(result.error)}\n`));
    }
    await print(io, forkLine(result, point.turn, location, flags.json === true, redact));
  }
  return failed ? EXIT.failure : EXIT.ok;
}

/**
 * A fork's line, redacted: its new entity, the turn it hangs from, its last turn, how it ended,
 * its result (a result's strings redacted before they are encoded, then the line).
 */
function forkLine(
  r: CastResult<Loom>,
  from: Turn,
  location: string,
  json: boolean,
  redact: (t: string) => string,
): string {
  if (json)
    return `${redactedJson({ ...resultJson(r, location), from_turn_id: from.id }, redact)}\n`;
  const how = r.status === "terminated" ? `terminated (${r.reason})` : `${r.status} (${r.reason})`;
  const result = (redactedText(r.result, redact) as string | undefined) ?? "";
  return redact(
    `${r.entityId} · from ${from.id} (turn ${from.sequence}) · last turn ${r.lastTurnId ?? "none"} · ${how} · ${result}\n`,
  );
}

/**
 * Finds the turn, its entity's spell and the intent; a ConfigError naming what is wrong. A loom
 * file is read whole (as before); a database's loom a page at a time, keeping its turns.
 */
async function forkPoint(store: LoomStore, flags: LoomForkFlags, cwd: string): Promise<ForkPoint> {
  const path = store.location;
  const turns: Turn[] = [];
  if (store.file !== undefined) {
    for (const r of readLoomFile(store.file).records) if (r.type === "turn") turns.push(r);
  } else {
    for await (const page of store.recordPages(0))
      for (const r of page.records) if (r.type === "turn") turns.push(r);
  }
  const entities = new Set(turns.map((t) => t.entity_id));
  if (flags.entity !== undefined && !entities.has(flags.entity))
    throw new ConfigError(
      "unknown_entity",
      `no entity ${flags.entity} in loom ${path} (spell loom tree ${path} lists its entities)`,
    );
  const turn = findTurn(turns, flags, path);
  const spell =
    flags.spell !== undefined
      ? resolve(cwd, flags.spell)
      : await recordedSpell(store, turn.entity_id);
  return { turn, spell, intent: flags.intent ?? recordedIntent(turns, turn) };
}

function findTurn(turns: readonly Turn[], flags: LoomForkFlags, path: string): Turn {
  const wanted = flags.turn.trim();
  if (/^\d+$/.test(wanted)) {
    const sequence = Number(wanted);
    // Without --entity: the loom's one entity that starts a thread of its own (a fork hangs
    // from another's turn), so the same line forks again after a fork.
    const roots = new Set(turns.filter((t) => t.parent_id === null).map((t) => t.entity_id));
    const entity = flags.entity ?? (roots.size === 1 ? [...roots][0] : undefined);
    if (entity === undefined)
      throw new ConfigError(
        "loom_unknown_turn",
        `--turn ${wanted} is a sequence number: the loom holds ${roots.size} entities that start a thread, name one with --entity ID, or give the turn's id (spell loom tree ${path} lists both)`,
      );
    const found = turns.find((t) => t.entity_id === entity && t.sequence === sequence);
    if (!found)
      throw new ConfigError(
        "loom_unknown_turn",
        `entity ${entity} has no turn ${sequence} in loom ${path} (its turns: 1 to ${turns.filter((t) => t.entity_id === entity).length})`,
      );
    return found;
  }
  const found = turns.find((t) => t.id === wanted);
  if (!found)
    throw new ConfigError(
      "loom_unknown_turn",
      `no turn ${JSON.stringify(wanted)} in loom ${path} (spell loom tree ${path} lists the turns)`,
    );
  if (flags.entity !== undefined && found.entity_id !== flags.entity)
    throw new ConfigError(
      "loom_unknown_turn",
      `turn ${wanted} belongs to entity ${found.entity_id}, not ${flags.entity}`,
    );
  return found;
}

/**
 * The spell file recorded for the entity: beside a loom file (`spell summon`, `spell run`), or in
 * a database's `loom_entity_spells` (`spell summon`).
 */
async function recordedSpell(store: LoomStore, entityId: string): Promise<string> {
  const spell =
    store.file !== undefined
      ? readState(store.file).entities[entityId]?.spell
      : await store.spellOfEntity?.(entityId);
  if (typeof spell !== "string")
    throw new ConfigError(
      "unknown_entity",
      `no spell is recorded for entity ${entityId} ${store.file !== undefined ? "beside" : "in"} loom ${store.location}: give the spell to fork with, --spell FILE`,
    );
  return displayPath(process.cwd(), spell);
}

/** The intent of the cast the turn belongs to: the nearest turn up its thread that records one. */
function recordedIntent(turns: readonly Turn[], turn: Turn): string {
  const byId = new Map(turns.map((t) => [t.id, t]));
  for (let t: Turn | undefined = turn; t; t = t.parent_id ? byId.get(t.parent_id) : undefined) {
    const intent = t.metadata["intent"];
    if (typeof intent === "string" && intent !== "") return intent;
  }
  throw new ConfigError(
    "intent_required",
    `no intent is recorded on the thread of turn ${turn.id}: give one, --intent TEXT`,
  );
}
