// Redis restarted during a queued run (an empty Redis: no persistence, so the queue is gone),
// with two real workers writing one PostgreSQL loom: the eval puts the casts it still waits for
// back on the new Redis under the same entities, and the run goes on to its summary. Nothing is
// lost or doubled: 12 entities, each with its 3 turns once (sequences 1..3), the intent once,
// 4 casts per case. Before, the eval waited forever for casts the old Redis took with it.
// Redis stopped for good: the run ends after 60 s with an error naming the Redis, non-zero.
import { expect, it } from "vitest";
import { envFor, startWireServer } from "../eval/support/harness.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { RedisServer } from "../support/redis.js";
import { loomTurns } from "./support/loom-turns.js";
import { cleanupAfterEach, QUEUE_NEEDS, queueEval, workersOn } from "./support/queue-scene.js";
import { stepperFolder } from "./support/stepper.js";
import { startWorker } from "./support/workers.js";
import { needs } from "../support/needs.js";

/** A folder with the stepper spell and the eval: three cases, four casts each. */
const scene = () =>
  stepperFolder(
    "spell-redis-restart-",
    "restart",
    [
      '{ name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }',
      '{ name: B, intent: "What is 2 + 2?", expect: [{ result: "4" }] }',
      '{ name: C, intent: "What is 3 + 2?", expect: [{ result: "5" }] }',
    ],
    "repeat: 4\n",
  );

const server = usePostgres();
const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS, noPostgres).describe(
  "Redis restarted during a queued run",
  { timeout: 240_000 },
  () => {
    it("the run goes on: every cast finishes once, in the loom exactly once", async () => {
      const db = await server().createDatabase();
      const redis = await RedisServer.start();
      // 3 turns a cast (two echo calls, then the answer), each answer 150 ms late.
      const wire = await startWireServer({ turns: 3, delayMs: 150 });
      cleanup.push(() => wire.close());
      const dir = scene();
      const args = ["--loom", db, "--concurrency", "2"];
      const timing = ["--lock-ms", "6000", "--stalled-check-ms", "2000"];
      const workers = await workersOn(redis, cleanup, 2, [...args, ...timing], envFor(wire), dir);

      const run = queueEval(redis.url, "out", dir);
      // Mid-run: one cast finished, others queued or running.
      await Promise.race(workers.map((w) => w.waitFor("cast done")));
      const doneBefore = workers.map((w) => w.log().match(/cast done/g)?.length ?? 0);
      await redis.restart();
      expect(doneBefore.reduce((a, b) => a + b)).toBeLessThan(12); // the restart was mid-run
      const r = await run;

      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/12\/12 passed/);
      const byEntity = await loomTurns(db);
      expect(byEntity.size).toBe(12); // no cast recorded twice (under a second entity)
      const perIntent = new Map<string, number>();
      for (const turns of byEntity.values()) {
        expect(turns.map((t) => t.sequence)).toEqual(turns.map((_, i) => i + 1));
        expect(new Set(turns.map((t) => t.id)).size).toBe(turns.length);
        const intents = turns.filter((t) => t.metadata["intent"] !== undefined);
        expect(intents).toHaveLength(1);
        const intent = String(intents[0]!.metadata["intent"]);
        perIntent.set(intent, (perIntent.get(intent) ?? 0) + 1);
      }
      for (const turns of byEntity.values()) expect(turns).toHaveLength(3);
      expect([...perIntent.values()]).toEqual([4, 4, 4]);
    });

    it("Redis gone for good: the run ends naming Redis, non-zero; the loom keeps what finished once", async () => {
      const db = await server().createDatabase();
      const redis = await RedisServer.start();
      // The run cannot finish without Redis: its 2nd model call is never answered.
      const wire = await startWireServer({ turns: 3, delayMs: 150, hold: [2] });
      const held = new Promise<void>((resolve) => {
        let out = "";
        wire.child.stdout?.on("data", (d: Buffer) => {
          if ((out += d.toString()).includes("HELD 2")) resolve();
        });
      });
      const dir = scene();
      const args = ["--queue", redis.url, "--loom", db, "--concurrency", "2"];
      const workers = [1, 2].map(() => startWorker(args, envFor(wire), dir));
      // Workers waiting on a Redis that is gone: ended with SIGKILL (only the ones started here).
      cleanup.push(async () => {
        const gone = workers.map((w) => new Promise((r) => w.child.once("exit", r)));
        for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
        await Promise.all(gone);
        await Promise.all([redis.close(), wire.close()]);
      });
      await Promise.all(workers.map((w) => w.waitFor("waiting for casts")));
      const run = queueEval(redis.url, "out", dir);
      await held;
      await redis.stop();
      const r = await run; // the enqueuer gives Redis 60 s to come back

      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(4);
      expect(r.stderr).toContain(`lost the queue's Redis at ${redis.url}: unreachable for 60 s`);
      const byEntity = await loomTurns(db);
      expect(byEntity.size).toBeLessThanOrEqual(12);
      for (const turns of byEntity.values()) {
        expect(turns.map((t) => t.sequence)).toEqual(turns.map((_, i) => i + 1));
        expect(new Set(turns.map((t) => t.id)).size).toBe(turns.length);
        expect(turns.filter((t) => t.metadata["intent"] !== undefined)).toHaveLength(1);
      }
    });
  },
);
