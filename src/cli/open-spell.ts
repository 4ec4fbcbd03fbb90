/**
 * The spell argument of run/eval/serve/mcp (and the other casting commands) made a local file
 * before the loader reads it (README "Sharing spells"): `oci://REF` fetched into the cache, the
 * references a spell names fetched too, all under the lock — so a registry's failure ends the
 * command with its own exit (4; 3 for the reference or the lock) before anything loads.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errorMessage, SpellbookError } from "../core/errors.js";
import { EXIT, displayPath, type CliIO } from "./io.js";

export interface ShareFlags {
  /** Plain HTTP to a registry that is not on loopback. */
  plainHttp?: boolean | undefined;
}

/** A spell argument made local: the file to load and the resolver of its references. */
export interface OpenedSpell {
  path: string;
  remote?: ((ref: string) => Promise<string>) | undefined;
}

/**
 * The spell of run/eval/serve/mcp as a local file: `oci://REF` fetched (under `./spell.lock` when
 * there is one); a file's references (under the lock beside it) fetched before it loads, and its
 * MCP scripts held to the lock. A file naming no reference, with no lock, costs one read.
 */
export async function openSpell(
  file: string,
  io: CliIO,
  flags: ShareFlags = {},
): Promise<OpenedSpell | number> {
  const remote = file.startsWith("oci://");
  const local = remote ? undefined : resolve(io.cwd, file);
  const lockFile = join(local ? dirname(local) : io.cwd, "spell.lock");
  if (local && !existsSync(lockFile) && !mentionsRemote(local)) return { path: file };
  try {
    const reg = await import("../registry/index.js");
    const lock = reg.readLock(lockFile);
    const spells = new reg.RemoteSpells({
      env: io.env,
      lock,
      plainHttp: flags.plainHttp,
      signal: io.signal,
    });
    if (local) {
      if (lock) reg.checkScripts(local, lock);
      await spells.fetchAll(local);
      return { path: file, remote: spells.resolve };
    }
    const got = await spells.fetch(file);
    await spells.fetchAll(got.main, got.dir);
    return { path: displayPath(io.cwd, got.main), remote: spells.resolve };
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    if (!(err instanceof SpellbookError)) throw err;
    return err.family === "spell" ? EXIT.invalid : EXIT.failure;
  }
}

function mentionsRemote(file: string): boolean {
  try {
    return readFileSync(file, "utf8").includes("oci://");
  } catch {
    return false; // the loader says why it cannot read it
  }
}
