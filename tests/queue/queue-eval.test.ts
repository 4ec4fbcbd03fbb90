// `spell eval --queue`: the casts go to a real Redis, two real `spell worker` processes run them,
// and the eval prints the same summary and writes the same report as a local run of the same
// document against the same (deterministic) wire server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import {
  envFor,
  evalFolder,
  runCli,
  startWireServer,
  THREE_CASES,
  type WireServer,
} from "../eval/support/harness.js";
import { RedisServer } from "../support/redis.js";
import {
  castsDone,
  cleanupAfterEach,
  QUEUE_NEEDS,
  queueEval,
  workersOn,
} from "./support/queue-scene.js";
import { stableSummary, stableTable } from "./support/report.js";
import { needs } from "../support/needs.js";

const cleanup = cleanupAfterEach();

const CONFIG = { correct: { "What is 1 + 2?": 2, "What is 2 + 2?": 4 } };
const wire = async () => {
  const s: WireServer = await startWireServer(CONFIG);
  cleanup.push(() => s.close());
  return s;
};

needs(...QUEUE_NEEDS).describe("spell eval --queue", { timeout: 180_000 }, () => {
  it("runs on two workers and reports the same as a local run", async () => {
    const local = await wire();
    const dir = evalFolder(THREE_CASES);
    const l = await runCli(["eval", "eval.yaml", "--out", "local"], envFor(local), dir);
    expect(l.code, l.stderr).toBe(0);

    const redis = await RedisServer.start();
    const remote = await wire();
    const workers = await workersOn(redis, cleanup, 2, ["--concurrency", "2"], envFor(remote), dir);
    const q = await queueEval(redis.url, "queued", dir);
    expect(q.code, q.stderr).toBe(0);

    expect(stableSummary(join(dir, "queued"))).toEqual(stableSummary(join(dir, "local")));
    expect(stableTable(q.stdout)).toEqual(stableTable(l.stdout));
    const rows = readFileSync(join(dir, "queued", "results.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(rows).toHaveLength(12);
    // Every cast ran on a worker: their logs account for all twelve.
    expect(castsDone(workers)).toBe(12);
    expect((await remote.stats()).requests).toBe((await local.stats()).requests);
  });
});
