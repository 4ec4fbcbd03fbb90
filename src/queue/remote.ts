/**
 * The enqueuing side of `spell eval --queue` and `spell run --repeat K --queue`: each cast becomes
 * one job on the casts queue, and its row comes back as the job's return value (BullMQ's
 * QueueEvents `completed`), so the run tallies, prints and reports exactly as a local run does
 * (eval/run.ts takes this as its `remote`). A job that fails on its worker (its spell cannot load
 * there) comes back as an errored row naming why.
 *
 * No outcome is missed, however late this process gets to read (a loaded machine, a thousand
 * jobs being added): the QueueEvents reads the events stream from where it stood when the queue
 * was opened, not from whenever its first read goes out; and a finished job is kept until its
 * outcome was read here (then removed), so a job that ended before its waiter looked is found
 * finished, with its return value, not missing.
 */
import type { Queue, QueueEvents } from "bullmq";
import { newEntityId } from "./ids.js";
import type { RemoteCasts } from "../eval/run.js";
import { connectionOf, loadBullMQ, type RedisConnection } from "./connection.js";
import { QUEUE_NAME, type QueuedCast, type QueuedOutcome } from "./job.js";

export interface RemoteOptions {
  /** The loom every worker writes these casts to; undefined: each worker's own `--loom`. */
  loom: string | undefined;
}

/** Finished jobs nobody read (an enqueuer that died) go after a day, BullMQ's cleanup. */
const KEEP_FINISHED = { age: 24 * 3600 };

export async function openRemote(url: string, o: RemoteOptions): Promise<RemoteCasts> {
  const { Queue, QueueEvents } = await loadBullMQ();
  const connection = connectionOf(url);
  const queue: Queue<QueuedCast, QueuedOutcome> = new Queue(QUEUE_NAME, { connection });
  await queue.waitUntilReady();
  // Every cast waits on its job, and each wait holds one `closing` listener on the queue.
  queue.setMaxListeners(0);
  const last = await lastEventId(connection, queue.toKey("events"));
  const events: QueueEvents = new QueueEvents(QUEUE_NAME, {
    connection,
    lastEventId: last ?? "0-0",
  });
  await events.waitUntilReady();
  return {
    async cast(spec) {
      const entityId = newEntityId();
      const data: QueuedCast = { ...spec, entityId, loom: o.loom };
      const job = await queue.add("cast", data, {
        jobId: entityId,
        removeOnComplete: KEEP_FINISHED,
        removeOnFail: 1000,
      });
      try {
        return await job.waitUntilFinished(events);
      } finally {
        await queue.remove(entityId).catch(() => 0); // read: no longer needed
      }
    },
    async close() {
      await Promise.all([events.close(), queue.close()]);
    },
  };
}

/** The id of the events stream's last entry now (undefined: no entry yet), on a short connection. */
async function lastEventId(connection: RedisConnection, key: string): Promise<string | undefined> {
  const { Redis } = await import("ioredis");
  const client = new Redis({ ...connection, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return (await client.xrevrange(key, "+", "-", "COUNT", 1))[0]?.[0];
  } finally {
    client.disconnect();
  }
}
