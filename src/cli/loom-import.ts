import { errorMessage } from "../core/errors.js";
import { sharedLoom, shownLoom } from "../loom/open/index.js";
import { EXIT, print, type CliIO } from "./io.js";
import { exitFor } from "./load.js";
import { openLoomArg } from "./loom-export.js";

export interface LoomImportFlags {
  /** The PostgreSQL loom the records go to (postgres://…). */
  to: string;
}

/**
 * `spell loom import FILE --to postgres://…`: every record of a loom appended to a PostgreSQL
 * loom, in append order. Appends are idempotent by id: importing again adds nothing. The URL's
 * password never reaches the output.
 */
export async function loomImportCommand(
  file: string,
  flags: LoomImportFlags,
  io: CliIO,
): Promise<number> {
  if (!sharedLoom(flags.to)) {
    io.stderr(`--to must be a postgres:// URL, not ${JSON.stringify(shownLoom(flags.to))}\n`);
    return EXIT.invalid;
  }
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const target = openLoomArg(flags.to, io);
  if (typeof target === "number") {
    await opened.store.close();
    return target;
  }
  const redact = (t: string) => target.redactor.redact(opened.redactor.redact(t));
  try {
    const { importLoom } = await import("../loom/postgres/index.js");
    const done = await importLoom(opened.store, target.store, (m) => io.stderr(`warning: ${m}\n`));
    await print(
      io,
      redact(`imported ${done.records} records (${done.added} new) into ${done.location}\n`),
    );
  } catch (err) {
    io.stderr(`${redact(errorMessage(err))}\n`);
    return exitFor(err);
  } finally {
    await opened.store.close();
    await target.store.close();
  }
  return EXIT.ok;
}
