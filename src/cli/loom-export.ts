import { existsSync } from "node:fs";
import { errorMessage } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { exportLoom } from "../loom/reading/index.js";
import type { LoomStore } from "../loom/stores/index.js";
import { loomSecrets, openLoom } from "../loom/open/index.js";
import { eachRecord } from "../loom/stores/index.js";
import type { TreeTurn } from "../loom/reading/index.js";
import type { LoomRecord } from "../loom/records/index.js";
import { loadSpell } from "../spell/index.js";
import { EXIT, displayPath, print, type CliIO } from "./io.js";

export interface LoomExportFlags {
  /** false only with the owner's explicit `--no-redact`. */
  redact: boolean;
  /** A spell whose `${env:…}` values are secrets too. */
  spell?: string | undefined;
}

/** A loom named on the command line, opened (open-loom.ts), and what its output is redacted of. */
export interface LoomArg {
  store: LoomStore;
  /** The loom as messages name it (a file's path, a database without its password). */
  path: string;
  redactor: Redactor;
}

/**
 * A loom named on the command line (a file, or a postgres:// URL): its store and a redactor of
 * every provider key set (and of the location's secrets, a URL's password). A file that is not
 * there is refused here (exit 3). The caller closes the store.
 */
export function openLoomArg(file: string, io: CliIO): LoomArg | number {
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(io.env[name]);
  for (const secret of loomSecrets(file)) redactor.add(secret);
  const store = openLoom(file, { resolvePath: (path) => displayPath(io.cwd, path) });
  if (store.file !== undefined && !existsSync(store.file)) {
    io.stderr(`${store.file}: no such loom file\n`);
    void store.close();
    return EXIT.invalid;
  }
  return { store, path: store.location, redactor };
}

/**
 * `spell loom export FILE|URL`: the loom as JSONL on stdout, redacted by default (PROD-8): the
 * common secret shapes, every provider key set in the environment, and the `${env:…}` values
 * of `--spell`. `--no-redact` is the owner's explicit opt-out. A torn piece of a record (a
 * killed writer) is skipped and reported on stderr.
 */
export async function loomExportCommand(
  file: string,
  flags: LoomExportFlags,
  io: CliIO,
): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  let spellRedactor: Redactor | undefined;
  try {
    if (flags.spell)
      spellRedactor = (
        await loadSpell(displayPath(io.cwd, flags.spell), { env: io.env, validateOnly: true })
      ).redactor;
    // Streamed: a page of records at a time, the next read only when stdout has taken the last
    // (back-pressure), so a loom of any size exports in bounded memory, into a file or a slow
    // pipe alike.
    await exportLoom(store, (text) => print(io, text), {
      redact: flags.redact
        ? (t) => redactor.redact(spellRedactor ? spellRedactor.redact(t) : t)
        : undefined,
      onTorn: (message) => io.stderr(`warning: ${message}\n`),
    });
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return EXIT.failure;
  } finally {
    await store.close();
  }
  if (!flags.redact)
    io.stderr(
      "warning: exported without redaction (--no-redact); the output may contain secrets\n",
    );
  return EXIT.ok;
}

/** `spell loom tree FILE|URL`: the turns as a tree (forks, children, a council's phases), redacted. */
export async function loomTreeCommand(file: string, io: CliIO): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  try {
    const { treeLines, treeTotal, treeTurn } = await import("../loom/reading/index.js");
    // Only what the tree shows of each turn is held, not the loom's text.
    const turns: TreeTurn[] = [];
    await eachLoomRecord(
      store,
      (record) => {
        const turn = treeTurn(record);
        if (turn) turns.push(turn);
      },
      io,
    );
    let open = true;
    for (const line of treeLines(turns, (t) => redactor.redact(t)))
      if (!(open = await print(io, `${line}\n`))) break;
    if (open) await print(io, `${treeTotal(turns)}\n`);
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return EXIT.failure;
  } finally {
    await store.close();
  }
  return EXIT.ok;
}

/** Each record of a loom, in append order (torn pieces of a file reported on stderr). */
export async function eachLoomRecord(
  store: LoomStore,
  onRecord: (record: LoomRecord) => void,
  io: CliIO,
): Promise<void> {
  const pages = store.recordPages(0, {
    onTorn: (message) => io.stderr(`warning: ${message}\n`),
  });
  for await (const record of eachRecord(pages)) onRecord(record);
}
