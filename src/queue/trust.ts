/**
 * What a job may make a worker do (docs/design/SCALE.md "Who may add jobs"). Anyone who can write
 * to the queue's Redis can add a job, so a job is not trusted: a worker runs only a spell inside
 * its own folder (`spell worker --spells DIR`, default: the folder it was started in; symlinks
 * resolved), and records only to its own `--loom`, to memory or to a PostgreSQL URL, never to a
 * file the job names. A refused job fails on the worker and comes back to its eval as an errored
 * row naming why; no model is queried for it.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { ConfigError } from "../core/errors.js";
import { isPostgresUrl, redactUrl } from "../loom/postgres-connection.js";
import type { QueuedCast } from "./job.js";
import { JOB_LOOM_OPTIONS } from "./loom.js";

/** The real path of `p`, or its nearest existing parent's joined with the rest. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = dirname(p);
    return parent === p ? p : join(real(parent), basename(p));
  }
}

/** The folder a worker runs spells from, as a real path (it must exist). */
export function spellsRoot(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    throw new ConfigError("queue_job", `spell worker --spells ${dir}: no such folder`);
  }
}

/** Throws when the job asks for what this worker does not do (`root`: from spellsRoot). */
export function checkJob(c: QueuedCast, root: string): void {
  const spell: unknown = c.spell;
  if (typeof spell !== "string" || !isAbsolute(spell))
    throw new ConfigError(
      "queue_job",
      `a job's spell must be an absolute path, not ${String(spell)}`,
    );
  const rel = relative(root, real(spell));
  if (rel === ".." || rel.startsWith("../") || isAbsolute(rel))
    throw new ConfigError(
      "queue_job",
      `the job's spell ${spell} is outside the folder this worker runs spells from (${root}; spell worker --spells DIR)`,
    );
  const loom: unknown = c.loom;
  if (loom !== undefined && loom !== "memory" && !(typeof loom === "string" && isPostgresUrl(loom)))
    throw new ConfigError(
      "queue_job",
      `the job names the loom ${JSON.stringify(loom)}: a job may name a loom URL, not a file (a worker's own file is its --loom)`,
    );
  if (typeof loom === "string" && isPostgresUrl(loom)) checkLoomUrl(loom);
}

/** A job's PostgreSQL URL names a host by name or address, with no option that reads a file. */
function checkLoomUrl(loom: string): void {
  const refuse = (why: string) =>
    new ConfigError(
      "queue_job",
      `the job's loom ${redactUrl(loom)} ${why} (a worker's own --loom may; a job's may not)`,
    );
  let url: URL;
  try {
    url = new URL(loom);
  } catch {
    throw refuse("is not a URL");
  }
  if (decodeURIComponent(url.hostname).startsWith("/")) throw refuse("names a socket");
  const allowed = (key: string) => JOB_LOOM_OPTIONS.has(key) || key === "password";
  const others = [...url.searchParams.keys()].filter((key) => !allowed(key));
  if (others.length)
    throw refuse(
      `carries ${others.join(", ")}: only ${[...JOB_LOOM_OPTIONS].join(", ")} are taken from a job`,
    );
}
