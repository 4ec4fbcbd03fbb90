// Issue 45, "the same verdict everywhere": the README's offline eval (spells/arithmetic-eval.yaml,
// a scripted spell, one of six replies wrong on purpose) gives the same rows on two workers as in
// one process: 5/6, exit 0. Before, each worker's scripted model went through its own list, so
// which casts a worker took decided the verdict (2/6, exit 1, was seen).
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../eval/support/harness.js";
import { needs } from "../support/needs.js";
import { RedisServer } from "../support/redis.js";
import { castsDone, cleanupAfterEach, QUEUE_NEEDS, workersOn } from "./support/queue-scene.js";

const cleanup = cleanupAfterEach();

const rowsOf = (dir: string, out: string): string[] =>
  readFileSync(join(dir, out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { case: string; repeat: number; status: string })
    .map((r) => `${r.case}#${r.repeat}:${r.status}`)
    .sort();

needs(...QUEUE_NEEDS).describe("the README's eval on two workers", { timeout: 180_000 }, () => {
  it("gives the rows and the exit code of a local run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "same-verdict-queue-"));
    cpSync("spells", join(dir, "spells"), { recursive: true });
    const evalFile = "spells/arithmetic-eval.yaml";
    const local = await runCli(["eval", evalFile, "--out", "local"], {}, dir);
    expect(local.code, local.stderr).toBe(0);

    const redis = await RedisServer.start();
    // Two workers, each taking up to three casts at once: who takes which is up to the queue.
    const workers = await workersOn(redis, cleanup, 2, ["--concurrency", "3"], {}, dir);
    const q = await runCli(["eval", evalFile, "--out", "queued", "--queue", redis.url], {}, dir);
    expect(q.code, q.stderr).toBe(0);
    expect(castsDone(workers)).toBe(6);
    expect(rowsOf(dir, "queued")).toEqual(rowsOf(dir, "local"));
    expect(rowsOf(dir, "queued").filter((r) => r.endsWith(":pass"))).toHaveLength(5);
  });
});
