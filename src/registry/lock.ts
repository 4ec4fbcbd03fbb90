/**
 * `spell.lock`, beside the spell (JSON): every registry reference the spell reaches, its child
 * spells' included, pinned to a manifest digest, and every MCP server script it starts hashed.
 * With a lock, a run fetches each reference by its pinned digest only and refuses a reference
 * or a script the lock does not hold as it is now, naming it (`spell lock --update` moves the
 * pins).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { DIGEST } from "./reference.js";

export const LOCK_NAME = "spell.lock";
export const LOCK_VERSION = 1;

export interface Lock {
  /** Where it was read from (messages name it). */
  file: string;
  /** `oci://…` as written → the manifest digest it is pinned to. */
  remote: Record<string, string>;
  /** MCP script path, relative to the lock's folder → its sha256. */
  scripts: Record<string, string>;
}

/** The lock beside `spellFile` (or in the folder `dir`), if there is one. */
export const lockPathFor = (spellFile: string): string => join(dirname(spellFile), LOCK_NAME);

export function readLock(path: string): Lock | undefined {
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new ConfigError("lock_invalid", `${path} is not valid JSON: run spell lock --update`);
  }
  const v = value as { version?: unknown; remote?: unknown; scripts?: unknown };
  if (v.version !== LOCK_VERSION)
    throw new ConfigError(
      "lock_invalid",
      `${path} is lock version ${String(v.version)}; this Spellbook reads ${LOCK_VERSION}`,
    );
  const table = (t: unknown, what: string): Record<string, string> => {
    if (t === undefined) return {};
    if (t === null || typeof t !== "object" || Array.isArray(t))
      throw new ConfigError("lock_invalid", `${path}: ${what} is not a mapping`);
    for (const [k, d] of Object.entries(t))
      if (typeof d !== "string" || !DIGEST.test(d))
        throw new ConfigError(
          "lock_invalid",
          `${path}: ${what} ${JSON.stringify(k)} is not pinned to a sha256 digest`,
        );
    return { ...(t as Record<string, string>) };
  };
  return { file: path, remote: table(v.remote, "remote"), scripts: table(v.scripts, "scripts") };
}

export function writeLock(lock: Lock): void {
  const sorted = (t: Record<string, string>) =>
    Object.fromEntries(Object.entries(t).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const text = `${JSON.stringify({ version: LOCK_VERSION, remote: sorted(lock.remote), scripts: sorted(lock.scripts) }, null, 2)}\n`;
  const tmp = `${lock.file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, lock.file);
}
