import { existsSync } from "node:fs";
import { errorMessage } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { exportLoomFile } from "../loom/export-file.js";
import { readRecords } from "../loom/storage-jsonl.js";
import type { TreeTurn } from "../loom/tree.js";
import type { LoomRecord } from "../loom/turn.js";
import { isPostgresUrl } from "../loom/postgres-connection.js";
import { tornMessage } from "../loom/jsonl-read.js";
import { loadSpell } from "../spell/index.js";
import { EXIT, displayPath, print, type CliIO } from "./io.js";

export interface LoomExportFlags {
  /** false only with the owner's explicit `--no-redact`. */
  redact: boolean;
  /** A spell whose `${env:…}` values are secrets too. */
  spell?: string | undefined;
}

/**
 * A loom named on the command line (a file, or a postgres:// URL), and a redactor of every
 * provider key set (and of the URL's password).
 */
export function openLoomArg(
  file: string,
  io: CliIO,
): { path: string; redactor: Redactor } | number {
  if (isPostgresUrl(file)) {
    const redactor = new Redactor();
    for (const name of KEY_ENV_VARS) redactor.add(io.env[name]);
    redactor.add(urlPassword(file));
    return { path: file, redactor };
  }
  const path = displayPath(io.cwd, file);
  if (!existsSync(path)) {
    io.stderr(`${path}: no such loom file\n`);
    return EXIT.invalid;
  }
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(io.env[name]);
  return { path, redactor };
}

/**
 * `spell loom export FILE`: the loom as JSONL on stdout, redacted by default (PROD-8): the
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
  const { path, redactor } = opened;
  let spellRedactor: Redactor | undefined;
  try {
    if (flags.spell)
      spellRedactor = (
        await loadSpell(displayPath(io.cwd, flags.spell), { env: io.env, validateOnly: true })
      ).redactor;
    // Streamed: a record at a time, read only when stdout has taken the last (back-pressure),
    // so a loom of any size exports in bounded memory, into a file or a slow pipe alike.
    const exporter = isPostgresUrl(path) ? exportPostgresLoom : exportLoomFile;
    await exporter(path, (text) => print(io, text), {
      redact: flags.redact
        ? (t) => redactor.redact(spellRedactor ? spellRedactor.redact(t) : t)
        : undefined,
      onTorn: (message) => io.stderr(`warning: ${message}\n`),
    });
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return EXIT.failure;
  }
  if (!flags.redact)
    io.stderr(
      "warning: exported without redaction (--no-redact); the output may contain secrets\n",
    );
  return EXIT.ok;
}

/** `spell loom tree FILE`: the turns as a tree (forks, children, a council's phases), redacted. */
export async function loomTreeCommand(file: string, io: CliIO): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { path, redactor } = opened;
  try {
    const { treeLines, treeTotal, treeTurn } = await import("../loom/tree.js");
    // Only what the tree shows of each turn is held, not the loom's text.
    const turns: TreeTurn[] = [];
    await eachLoomRecord(
      path,
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
  }
  return EXIT.ok;
}

/** Each record of a loom file (torn pieces reported on stderr) or of a PostgreSQL loom. */
export async function eachLoomRecord(
  path: string,
  onRecord: (record: LoomRecord) => void,
  io: CliIO,
): Promise<void> {
  if (!isPostgresUrl(path)) {
    readRecords(path, onRecord, (piece) => io.stderr(`warning: ${tornMessage(path, piece)}\n`));
    return;
  }
  const { postgresRecords } = await import("../loom/postgres-records.js");
  for await (const record of postgresRecords(path)) onRecord(record);
}

/** The password of a postgres URL, when it has one. */
export function urlPassword(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

async function exportPostgresLoom(
  url: string,
  write: (text: string) => boolean | Promise<boolean>,
  options: { redact?: ((text: string) => string) | undefined },
): Promise<void> {
  const records = await import("../loom/postgres-records.js");
  await records.exportPostgresLoom(url, write, options);
}
