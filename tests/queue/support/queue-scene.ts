/**
 * What the queue tests set up alike: what they need (redis-server, a built CLI: see
 * tests/support/needs.ts), a cleanup list run after each test, `spell worker`s on a fresh Redis, and the queued
 * eval pointed at no server (port 9, nothing listens) so that only the workers cast.
 */
import { afterEach } from "vitest";
import { runCli, type CliRun } from "../../eval/support/harness.js";
import { notBuilt } from "../../support/needs.js";
import { REDIS_MISSING, type RedisServer } from "../../support/redis.js";
import { startWorker, type WorkerProcess } from "./workers.js";

/** Why the CLI cannot run here (the workers run bin/run.js on dist/), or undefined. */
export const noCli = notBuilt();
/** What a test needing a Redis and workers needs: `needs(...QUEUE_NEEDS).describe(…)`. */
export const QUEUE_NEEDS = [REDIS_MISSING, noCli] as const;

export type Cleanup = (() => Promise<void>)[];

/**
 * The steps the running test pushes, run after it one by one, the last pushed first: what was
 * started last stops first, so a worker stops while its Redis is still there (a worker told to
 * stop after its Redis went waits for it to come back: when both were stopped at once, the
 * afterEach ran out of its time now and then). Stopping workers lets BullMQ close its blocking
 * connections: slow on a loaded machine, hence the two minutes. A step that fails does not keep
 * the others from running; the first failure is thrown after them.
 */
export function cleanupAfterEach(): Cleanup {
  const cleanup: Cleanup = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const step of cleanup.splice(0).reverse())
      await step().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  }, 120_000);
  return cleanup;
}

/** The eval's own model settings: no server (port 9, nothing listens), so only workers cast. */
export const NOWHERE = { EVAL_BASE: "http://127.0.0.1:9/v1", EVAL_KEY: "sk-unused-000000" };

/** `spell eval eval.yaml --out OUT --queue URL [...more]` in `dir`, pointed at no server. */
export const queueEval = (
  redisUrl: string,
  out: string,
  dir: string,
  more: string[] = [],
): Promise<CliRun> =>
  runCli(["eval", "eval.yaml", "--out", out, "--queue", redisUrl, ...more], NOWHERE, dir);

/**
 * `count` workers on `redis` (`--queue URL`, then `args`), each ready ("waiting for casts").
 * On cleanup the workers stop first, while Redis still answers them; then Redis ends.
 */
export async function workersOn(
  redis: RedisServer,
  cleanup: Cleanup,
  count: number,
  args: string[],
  env: Record<string, string>,
  dir: string,
): Promise<WorkerProcess[]> {
  const workers = Array.from({ length: count }, () =>
    startWorker(["--queue", redis.url, ...args], env, dir),
  );
  cleanup.push(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await redis.close();
  });
  await Promise.all(workers.map((w) => w.waitFor("waiting for casts")));
  return workers;
}

/** How many casts the workers finished, by their logs ("cast done" lines). */
export const castsDone = (workers: WorkerProcess[]): number =>
  workers.map((w) => (w.log().match(/cast done/g) ?? []).length).reduce((a, b) => a + b, 0);
