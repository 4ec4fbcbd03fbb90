/**
 * A worker's loom for a job: the file or URL the job (or `spell worker --loom`) names, opened
 * once and shared by every cast that names it; none named, an in-memory loom (the rows still
 * come back; the turns are not kept).
 */
import type { Redactor } from "../core/redact.js";
import { Loom } from "../loom/loom.js";
import { openLoomStore } from "../spell/loom-store.js";

export interface WorkerLoom {
  loom: Loom;
  close(): void;
}

export async function openWorkerLoom(
  where: string | undefined,
  redactor: Redactor,
  env: NodeJS.ProcessEnv,
): Promise<WorkerLoom> {
  await Promise.resolve();
  const loom = where ? new Loom(openLoomStore(where, process.cwd(), redactor, env)) : new Loom();
  return { loom, close: () => loom.close() };
}
