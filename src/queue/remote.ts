/**
 * The enqueuing side of `spell eval --queue`: each cast becomes one job on the casts queue, and
 * its row comes back as the job's return value (BullMQ's QueueEvents `completed`), so the eval
 * tallies, prints and reports exactly as a local run does (eval/run.ts takes this as its
 * `remote`). A job that fails on its worker (its spell cannot load there) comes back as an
 * errored row naming why.
 */
import type { Queue, QueueEvents } from "bullmq";
import { newEntityId } from "./ids.js";
import type { RemoteCasts } from "../eval/run.js";
import { connectionOf, loadBullMQ } from "./connection.js";
import { QUEUE_NAME, type QueuedCast, type QueuedOutcome } from "./job.js";

export interface RemoteOptions {
  /** The loom every worker writes these casts to; undefined: each worker's own `--loom`. */
  loom: string | undefined;
}

export async function openRemote(url: string, o: RemoteOptions): Promise<RemoteCasts> {
  const { Queue, QueueEvents } = await loadBullMQ();
  const connection = connectionOf(url);
  const queue: Queue<QueuedCast, QueuedOutcome> = new Queue(QUEUE_NAME, { connection });
  const events: QueueEvents = new QueueEvents(QUEUE_NAME, { connection });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  return {
    async cast(spec) {
      const entityId = newEntityId();
      const data: QueuedCast = { ...spec, entityId, loom: o.loom };
      const job = await queue.add("cast", data, {
        jobId: entityId,
        removeOnComplete: true,
        removeOnFail: 1000,
      });
      return job.waitUntilFinished(events);
    },
    async close() {
      await Promise.all([events.close(), queue.close()]);
    },
  };
}
