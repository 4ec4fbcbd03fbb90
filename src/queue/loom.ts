/**
 * A worker's loom for a job: the file or URL the job (or `spell worker --loom`) names, opened
 * once and shared by every cast that names it — a `postgres://…` URL is a PostgreSQL loom that
 * every worker writes at once (appends fenced by entity and sequence: loom_fenced); none named,
 * an in-memory loom (the rows still come back; the turns are not kept).
 *
 * The hand-over (docs/design/SCALE.md): before a job's cast, `prepare(entityId)` reads the
 * entity's thread back from PostgreSQL into the loom, so `cast(intent, { resumeEntity })`
 * continues from the last turn any worker recorded. A file or memory loom has nothing to read:
 * a file loom rereads itself when the entity is held, a memory loom is this process's alone.
 */
import type { Redactor } from "../core/redact.js";
import { entityRecords } from "../loom/entity-read.js";
import { Loom } from "../loom/loom.js";
import { isPostgresUrl } from "../loom/postgres-connection.js";
import { QueuedRecordStore } from "../loom/store-queued.js";
import { postgresLoomStore } from "../loom/storage-postgres.js";
import { openLoomStore } from "../spell/loom-store.js";

export interface WorkerLoom {
  loom: Loom;
  /** Reads what the shared store holds of the entity into the loom (PostgreSQL); else nothing. */
  prepare: (entityId: string) => Promise<void>;
  close(): Promise<void>;
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
  const loom = !where ? new Loom() : new Loom(openLoomStore(where, process.cwd(), redactor, env));
  return Promise.resolve({
    loom,
    prepare: () => Promise.resolve(),
    close: () => Promise.resolve(loom.close()),
  });
}
