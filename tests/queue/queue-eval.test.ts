// `spell eval --queue`: the casts go to a real Redis, two real `spell worker` processes run them,
// and the eval prints the same summary and writes the same report as a local run of the same
// document against the same (deterministic) wire server.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  envFor,
  evalFolder,
  runCli,
  startWireServer,
  THREE_CASES,
  type WireServer,
} from "../eval/support/harness.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";
import { startWorker, type WorkerProcess } from "./support/workers.js";

if (REDIS_MISSING) console.log(`skipping: ${REDIS_MISSING}`);
const built = existsSync("dist/spell.cjs");
if (!built) console.log("skipping: the CLI is not built (npm run build)");

const cleanup: (() => Promise<void>)[] = [];
// Stopping workers lets BullMQ close its blocking connections: slow on a loaded machine.
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
}, 60_000);

const CONFIG = { correct: { "What is 1 + 2?": 2, "What is 2 + 2?": 4 } };
const wire = async () => {
  const s: WireServer = await startWireServer(CONFIG);
  cleanup.push(() => s.close());
  return s;
};

/** A summary's groups without what differs from run to run (latency). */
const stable = (out: string) => {
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
    total: number;
    done: number;
    groups: Record<string, unknown>[];
  };
  return {
    total: s.total,
    done: s.done,
    // Latencies differ between any two runs; everything else must be the same.
    groups: s.groups.map(({ mean_latency_ms: _mean, p95_latency_ms: _p95, ...g }) => g),
  };
};
const table = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => !l.startsWith("report:"))
    .map((l) => l.replace(/latency mean \d+ ms p95 \d+ ms/, "latency _"));

describe.skipIf(REDIS_MISSING !== undefined || !built)(
  "spell eval --queue",
  { timeout: 180_000 },
  () => {
    it("runs on two workers and reports the same as a local run", async () => {
      const local = await wire();
      const dir = evalFolder(THREE_CASES);
      const l = await runCli(["eval", "eval.yaml", "--out", "local"], envFor(local), dir);
      expect(l.code, l.stderr).toBe(0);

      const redis = await RedisServer.start();
      const remote = await wire();
      const workers: WorkerProcess[] = [1, 2].map(() =>
        startWorker(["--queue", redis.url, "--concurrency", "2"], envFor(remote), dir),
      );
      // The workers stop first, while Redis still answers them; then Redis ends.
      cleanup.push(async () => {
        await Promise.all(workers.map((w) => w.stop()));
        await redis.close();
      });
      await Promise.all(workers.map((w) => w.waitFor("waiting for casts")));
      // The eval itself is pointed at no server (port 9, nothing listens): only workers cast.
      const nowhere = { EVAL_BASE: "http://127.0.0.1:9/v1", EVAL_KEY: "sk-unused-000000" };
      const q = await runCli(
        ["eval", "eval.yaml", "--out", "queued", "--queue", redis.url],
        nowhere,
        dir,
      );
      expect(q.code, q.stderr).toBe(0);

      expect(stable(join(dir, "queued"))).toEqual(stable(join(dir, "local")));
      expect(table(q.stdout)).toEqual(table(l.stdout));
      const rows = readFileSync(join(dir, "queued", "results.jsonl"), "utf8")
        .trim()
        .split("\n");
      expect(rows).toHaveLength(12);
      // Every cast ran on a worker: their logs account for all twelve.
      const ran = workers.map((w) => (w.log().match(/cast done/g) ?? []).length);
      expect(ran.reduce((a, b) => a + b, 0)).toBe(12);
      expect((await remote.stats()).requests).toBe((await local.stats()).requests);
    });
  },
);
