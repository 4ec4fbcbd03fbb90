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
import { entityRecords } from "../loom/entity-read.js";
import { Loom } from "../loom/loom.js";
import { isPostgresUrl, urlWithoutSecrets } from "../loom/postgres-connection.js";
import { QueuedRecordStore } from "../loom/store-queued.js";
import { postgresLoomStore } from "../loom/storage-postgres.js";
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
  if (!where || !isPostgresUrl(where)) return where;
  const bare = urlWithoutSecrets(where);
  if (bare === null) return where.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):.*@/i, "$1@");
  const url = new URL(bare);
  for (const key of [...url.searchParams.keys()])
    if (!JOB_LOOM_OPTIONS.has(key)) url.searchParams.delete(key);
  return url.href;
}

export function openWorkerLoom(
  where: string | undefined,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): Promise<WorkerLoom> {
  const redact = (text: string) => redactor.redact(text);
  if (where && isPostgresUrl(where)) {
    const store = new QueuedRecordStore(postgresLoomStore(where, { redact }));
    const loom = new Loom(store);
    return Promise.resolve({
      loom,
      prepare: async (entityId) => loom.absorb(await entityRecords(store.target, entityId)),
      close: () => store.close(),
    });
  }
  const loom =
    !where || where === "memory"
      ? new Loom()
      : new Loom(openLoomStore(where, process.cwd(), redactor, env));
  return Promise.resolve({
    loom,
    prepare: () => Promise.resolve(),
    close: () => Promise.resolve(loom.close()),
  });
}
