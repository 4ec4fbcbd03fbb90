/**
 * What a job may make a worker do (docs/design/SCALE.md "Who may add jobs"). Anyone who can write
 * to the queue's Redis can add a job, so a job is not trusted: its data must be a cast (job.ts),
 * a worker runs only a spell inside its own folder (`spell worker --spells DIR`, default: the
 * folder it was started in; symlinks resolved), and records only to its own `--loom` or to memory,
 * never to a file or another database the job names. A refused job fails on the worker with
 * `queue_job` and comes back to its eval as an errored row naming why; no model is queried for it.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { ConfigError } from "../core/errors.js";
import { sameSharedLoom, sharedLoom, shownLoom } from "../loom/open/index.js";
import { castOf, type QueuedCast } from "./job.js";

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

/**
 * The cast a job asks for, checked: its data is a cast (job.ts castOf) whose spell is inside
 * this worker's folder (`root`: from spellsRoot). Throws `queue_job` otherwise.
 */
export function checkJob(data: unknown, root: string): QueuedCast {
  const c = castOf(data);
  if (!isAbsolute(c.spell))
    throw new ConfigError("queue_job", `a job's spell must be an absolute path, not ${c.spell}`);
  const rel = relative(root, real(c.spell));
  if (rel === ".." || rel.startsWith("../") || isAbsolute(rel))
    throw new ConfigError(
      "queue_job",
      `the job's spell ${c.spell} is outside the folder this worker runs spells from (${root}; spell worker --spells DIR)`,
    );
  return c;
}

/**
 * Where this worker records a job's cast: its own `--loom` (`own`) when the job names none or
 * names that PostgreSQL database (the same user, host, port and database; its options aside),
 * or memory. Any other loom is refused: a file, and a PostgreSQL URL elsewhere — a worker connects
 * only with its own `--loom` URL, never with one a job wrote, so its credentials (the URL's
 * password, PGPASSWORD, ~/.pgpass) never go to a host a job names.
 */
export function workerLoomFor(
  job: string | undefined,
  own: string | undefined,
): string | undefined {
  if (job === undefined) return own;
  if (job === "memory") return job;
  if (own !== undefined && sameSharedLoom(job, own)) return own;
  const shown = sharedLoom(job)
    ? shownLoom(job)
    : JSON.stringify(job.length > 200 ? `${job.slice(0, 200)}…` : job);
  const mine = own && sharedLoom(own) ? `its --loom ${shownLoom(own)}` : "no PostgreSQL --loom";
  throw new ConfigError(
    "queue_job",
    `the job names the loom ${shown}: a job may name only this worker's own loom (${mine}) or memory, never a file or another database`,
  );
}
