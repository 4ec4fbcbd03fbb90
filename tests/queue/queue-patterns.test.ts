// A queued case's patterns come from whoever can write to the queue's Redis, not from the
// worker's owner: a `result_matches` or a `result_schema` `pattern` that backtracks without end
// (`^(a+)+$` against forty a's and a "!") must not hold the worker's thread — held, it renews no
// job lock and takes no other job, and every worker that takes the job over is held in turn. On
// a worker they match in linear time (RE2), so the cast ends as an ordinary failed row.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { runCli } from "../eval/support/harness.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";
import { startWorker } from "./support/workers.js";
import { needs, notBuilt } from "../support/needs.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
}, 120_000);

const ANSWER = `${"a".repeat(40)}!`;

const SPELL = `kind: cantrip
name: echo
llm: { provider: scripted, cycle: true, responses: [{ content: "${ANSWER}" }] }
identity: { system_prompt: Say it. }
circle:
  gates: [done]
  wards: [{ max_turns: 1 }]
`;

const EVAL = `kind: eval
name: patterns
spells: [./echo.yaml]
cases:
  - { name: matches, intent: "say it", expect: [{ result_matches: "^(a+)+$" }] }
  - { name: schema, intent: "say it", expect: [{ result_schema: { type: string, pattern: "^(a+)+$" } }] }
repeat: 1
concurrency: 2
`;

needs(REDIS_MISSING, notBuilt()).describe(
  "a queued case's patterns cannot hold a worker",
  { timeout: 240_000 },
  () => {
    it("a backtracking result_matches and result_schema pattern fail the case, and the worker goes on", async () => {
      const redis = await RedisServer.start();
      cleanup.push(() => redis.close());
      const dir = mkdtempSync(join(tmpdir(), "queue-patterns-"));
      writeFileSync(join(dir, "echo.yaml"), SPELL);
      writeFileSync(join(dir, "eval.yaml"), EVAL);
      const worker = startWorker(["--queue", redis.url, "--spells", dir], {}, dir);
      // A held worker answers no SIGTERM: it is this test's own child, ended with SIGKILL.
      cleanup.push(() => void worker.child.kill("SIGKILL"));
      await worker.waitFor("waiting for casts");
      let enqueuer: ChildProcess | undefined;
      cleanup.push(() => void enqueuer?.kill("SIGKILL"));
      const r = await runCli(
        ["eval", "eval.yaml", "--out", "out", "--queue", redis.url],
        {},
        dir,
        (child) => (enqueuer = child),
      );
      expect(r.code, r.stderr).toBe(1); // below pass.rate: both cases failed
      const rows = readFileSync(join(dir, "out", "results.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { case: string; status: string; reason: string });
      expect(rows.map((row) => [row.case, row.status]).sort()).toEqual([
        ["matches", "fail"],
        ["schema", "fail"],
      ]);
      // The worker still answers: it logged both casts and takes the next job.
      expect(worker.log()).toMatch(/cast done .*matches #0: fail/);
      expect(worker.log()).toMatch(/cast done .*schema #0: fail/);
    });
  },
);
