// The enqueuing side of a queued run (src/queue/remote.ts) gets back every job's outcome, even
// one whose job a worker finished before the enqueuer's QueueEvents had read anything: here the
// enqueuer's event loop is held busy (as under load, adding a thousand jobs) while a real worker
// process on a real Redis finishes the job. Before the fix the cast never resolved (its
// `completed` event was missed) or came back as a failure (the finished job already removed).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openRemote } from "../../src/queue/remote.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";
import { needs } from "../support/needs.js";

const cleanup: (() => Promise<void>)[] = [];
// One by one, the last pushed first: the worker stops while its Redis is still there.
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** Blocks this thread (its event loop included) for `ms` without using the CPU. */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const CASE = { id: "c", intent: "What is 1 + 2?", expect: [], location: "x.yaml" };

needs(REDIS_MISSING).describe("queued casts' outcomes", { timeout: 120_000 }, () => {
  it("comes back when the worker finished the job before the enqueuer listened", async () => {
    const redis = await RedisServer.start();
    cleanup.push(() => redis.close());
    // The worker adds a line here for each job it has finished.
    const finished = join(mkdtempSync(join(tmpdir(), "remote-race-")), "finished");
    const finishedJobs = () =>
      existsSync(finished) ? readFileSync(finished, "utf8").split("\n").length - 1 : 0;
    const worker = spawn(
      process.execPath,
      [join("tests/queue/support/instant-worker.mjs"), String(redis.port), finished],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          if (worker.exitCode !== null) return resolve();
          worker.once("exit", () => resolve());
          worker.kill("SIGTERM");
        }),
    );
    await new Promise<void>((resolve) =>
      worker.stdout.on("data", (d: Buffer) => d.toString().includes("READY") && resolve()),
    );
    const remote = await openRemote(redis.url, { loom: undefined });
    cleanup.push(() => remote.close());
    // Four rounds: whether this process's add went out before it was held varies a little.
    for (let round = 0; round < 4; round++) {
      const outcome = remote.cast({ spell: "/x.yaml", llm: undefined, case: CASE, repeat: round });
      // Let the job's add go out (microtasks only: no reply is read meanwhile), then hold this
      // event loop until the worker has finished the job (or 2 s, when the add had not gone out):
      // blocked, on purpose, so nothing of this process runs meanwhile.
      for (let i = 0; i < 1000; i++) await Promise.resolve();
      const until = Date.now() + 2000;
      while (finishedJobs() <= round && Date.now() < until) block(5);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("the cast's outcome never came back")), 30_000);
      });
      const o = (await Promise.race([outcome, timeout])) as { row: { status: string } };
      clearTimeout(timer);
      expect(o.row.status).toBe("pass");
    }
  });
});
