/**
 * The enqueuing side of `spell eval --queue` and `spell run --repeat K --queue`: each cast becomes
 * one job on the casts queue, and its row comes back as the job's return value (BullMQ's
 * QueueEvents `completed`), so the run tallies, prints and reports exactly as a local run does
 * (eval/run.ts takes this as its `remote`). A job that fails on its worker (its spell cannot load there) comes back as an
 * errored row naming why.
 *
 * Redis restarted (docs/design/SCALE.md "Redis restarted"): a Redis that comes back as a new
 * server (its `run_id` changed) may have lost the queue, so every cast still waited for is put
 * back under the same job and entity id; a worker continues each from its last recorded turn
 * (a finished one gives back its recorded ending). Redis away for longer than `awayMs`: the run
 * fails with `queue_lost`, naming the Redis.
 *
 * No outcome is missed, however late this process gets to read (a loaded machine, a thousand
 * jobs being added): the QueueEvents reads the events stream from where it stood when the queue
 * was opened, not from whenever its first read goes out; and a finished job is kept until its
 * outcome was read here (then removed), so a job that ended before its waiter looked is found
 * finished, with its return value, not missing.
 */
import type { Queue, QueueEvents } from "bullmq";
import { SystemError } from "../core/errors.js";
import { newEntityId } from "../core/ids.js";
import type { RemoteCasts } from "../eval/run.js";
import { connectionOf, loadBullMQ, shownQueue, type RedisConnection } from "./connection.js";
import { QUEUE_NAME, type QueuedCast, type QueuedOutcome } from "./job.js";
import { jobLoom } from "./loom.js";

export interface RemoteOptions {
  /** The loom every worker writes these casts to; undefined: each worker's own `--loom`. */
  loom: string | undefined;
  /** How long Redis may be unreachable before the run fails (ms); default 60 s. */
  awayMs?: number | undefined;
}

/** Finished jobs nobody read (an enqueuer that died) go after a day, BullMQ's cleanup. */
const JOB = { removeOnComplete: { age: 24 * 3600 }, removeOnFail: 1000 } as const;

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
  // Connection errors while Redis is away: the watch below says what happened, once.
  queue.on("error", () => {});
  events.on("error", () => {});
  const pending = new Map<string, QueuedCast>();
  const put = (data: QueuedCast) => queue.add("cast", data, { ...JOB, jobId: data.entityId });
  const watch = await watchRedis(url, o.awayMs ?? 60_000, async () => {
    for (const data of pending.values()) await put(data);
  });
  return {
    async cast(spec) {
      const entityId = newEntityId();
      // Without the loom's password: anyone reading the Redis reads the job (loom.ts jobLoom).
      const data: QueuedCast = { ...spec, entityId, loom: jobLoom(o.loom) };
      pending.set(entityId, data);
      try {
        const job = await Promise.race([put(data), watch.lost]);
        return await Promise.race([job.waitUntilFinished(events), watch.lost]);
      } finally {
        pending.delete(entityId);
        // Read: no longer needed (with Redis lost, nothing is left to remove).
        if (!watch.isLost()) void queue.remove(entityId).catch(() => 0);
      }
    },
    async close() {
      watch.stop();
      // Redis gone: closing would wait for it, and with nothing else left to run the process
      // would end there (exit 0, nothing said); the connections are dropped without waiting.
      if (!watch.isLost()) return void (await Promise.all([events.close(), queue.close()]));
      void events.disconnect().catch(() => {});
      void queue.disconnect().catch(() => {});
    },
  };
}

/**
 * Watches the queue's Redis connection: `restarted` runs when Redis answers again as another
 * server (a new `run_id`); `lost` rejects once it has been unreachable for `awayMs`.
 */
async function watchRedis(url: string, awayMs: number, restarted: () => Promise<void>) {
  const { Redis } = await import("ioredis");
  const client = new Redis({ ...connectionOf(url), lazyConnect: true });
  client.on("error", () => {}); // reconnects on its own; `away` counts how long it is gone
  await client.connect();
  const runId = async () => /run_id:(\w+)/.exec(await client.info("server"))?.[1];
  let id = await runId();
  let timer: NodeJS.Timeout | undefined;
  let gone = false;
  let fail: (err: Error) => void = () => {};
  const lost = new Promise<never>((_, reject) => (fail = reject));
  lost.catch(() => {}); // rejected only while a cast waits on it
  const away = () => {
    timer ??= setTimeout(() => {
      gone = true;
      const where = shownQueue(url);
      fail(
        new SystemError(
          "queue_lost",
          `lost the queue's Redis at ${where}: unreachable for ${awayMs / 1000} s`,
        ),
      );
    }, awayMs);
  };
  const back = async () => {
    clearTimeout(timer);
    timer = undefined;
    const now = await runId().catch(() => id);
    if (now === id) return;
    id = now; // a new server: what the old one held may be gone
    await restarted().catch(() => {});
  };
  client.on("close", away);
  client.on("ready", () => void back());
  return {
    lost,
    isLost: () => gone,
    stop: () => {
      clearTimeout(timer);
      client.off("close", away);
      client.disconnect();
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
