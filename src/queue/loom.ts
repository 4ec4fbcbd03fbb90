/**
 * A worker's loom for a job: the file or URL the job (or `spell worker --loom`) names, opened
 * once and shared by every cast that names it — a `postgres://…` URL is a PostgreSQL loom that
 * every worker writes at once (appends fenced by entity and sequence: loom_fenced); none named,
 * or `memory`, an in-memory loom (the rows still come back; the turns are not kept).
 *
 * The hand-over (docs/design/SCALE.md): before a job's cast, `prepare(entityId)` reads the
 * entity's thread back from PostgreSQL into the loom, so `cast(intent, { resumeEntity })`
 * continues from the last turn any worker recorded. A file or memory loom has nothing to read:
 * a file loom rereads itself when the entity is held, a memory loom is this process's alone.
 *
 * Credentials: anyone who can read the queue's Redis reads every job's data, so a job names its
 * PostgreSQL loom without the password (`jobLoom`); a worker connects only with its own `--loom`
 * URL, and only when the job names that database (trust.ts `workerLoomFor`): a job's URL never
 * reaches `pg`, so neither the worker's password nor what `pg` finds itself (PGPASSWORD,
 * ~/.pgpass) goes to a host a job names.
 */
import type { Redactor } from "../core/redact.js";
import { readEntityInto } from "../loom/core/index.js";
import { Loom } from "../loom/core/index.js";
import { portableLoom } from "../loom/open/index.js";
import { openLoomStore } from "../spell/loom-store.js";

export interface WorkerLoom {
  loom: Loom;
  /** Reads what the shared store holds of the entity into the loom (PostgreSQL); else nothing. */
  prepare: (entityId: string) => Promise<void>;
  close(): Promise<void>;
}

/**
 * The options a job's PostgreSQL URL may carry: none reads a file (`sslkey=/dev/zero` held a
 * worker reading it for ever) or names a socket. A job carries these only; the worker's own
 * `--loom` keeps the rest (a CA file, a client key), used when it names the same database.
 */
export const JOB_LOOM_OPTIONS: ReadonlySet<string> = new Set([
  "sslmode",
  "ssl",
  "application_name",
  "connect_timeout",
]);

/**
 * A loom as a job carries it: a PostgreSQL URL without its password and with only the options
 * of JOB_LOOM_OPTIONS; anything else as it is.
 */
export function jobLoom(where: string | undefined): string | undefined {
  return where && portableLoom(where, JOB_LOOM_OPTIONS);
}

/**
 * The loom a worker records a job's casts to (open-loom.ts): a store other workers write too
 * (a database) is read back before each cast (`prepare`); a file or memory has nothing to read.
 */
export function openWorkerLoom(
  where: string | undefined,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): Promise<WorkerLoom> {
  const store = openLoomStore(where ?? "memory", process.cwd(), redactor, env);
  const loom = new Loom(store);
  return Promise.resolve({
    loom,
    prepare: (entityId) => readEntityInto(loom, entityId),
    close: async () => {
      await store.close();
    },
  });
}
