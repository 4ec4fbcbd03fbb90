/**
 * A worker's loom for a job: the file or URL the job (or `spell worker --loom`) names, opened
 * once and shared by every cast that names it — a `postgres://…` URL is a PostgreSQL loom that
 * every worker writes at once (appends fenced by entity and sequence: loom_fenced); none named,
 * an in-memory loom (the rows still come back; the turns are not kept).
 */
import type { Redactor } from "../core/redact.js";
import { Loom } from "../loom/loom.js";
import { isPostgresUrl } from "../loom/postgres-connection.js";
import { QueuedRecordStore } from "../loom/store-queued.js";
import { postgresLoomStore } from "../loom/storage-postgres.js";
import { openLoomStore } from "../spell/loom-store.js";

export interface WorkerLoom {
  loom: Loom;
  close(): void;
}

export function openWorkerLoom(
  where: string | undefined,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): Promise<WorkerLoom> {
  const redact = (text: string) => redactor.redact(text);
  const loom = !where
    ? new Loom()
    : isPostgresUrl(where)
      ? new Loom(new QueuedRecordStore(postgresLoomStore(where, { redact })))
      : new Loom(openLoomStore(where, process.cwd(), redactor, env));
  return Promise.resolve({ loom, close: () => loom.close() });
}
