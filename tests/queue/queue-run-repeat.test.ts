// `spell run FILE --repeat K --queue redis://…`: the K casts go to a real Redis, two real
// `spell worker` processes run them, and the run shows the same progress line and prints the same
// summary as the local `--repeat K` of the same spell. The server answers every odd request by
// calling done and every even one with text, so exactly half of each run's casts pass whatever
// order they run in.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../eval/support/harness.js";
import { Loopback } from "../support/loopback-http.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";
import { startWorker, type WorkerProcess } from "./support/workers.js";

if (REDIS_MISSING) console.log(`skipping: ${REDIS_MISSING}`);
const built = existsSync("dist/spell.cjs");
if (!built) console.log("skipping: the CLI is not built (npm run build)");

const SPELL = `name: adder
llm: { provider: openai, model: wire-model, base_url: "\${env:R_BASE}", api_key: "\${env:R_KEY}" }
identity: { system_prompt: Add. }
intent: What is 1 + 2?
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

const reply = (message: Record<string, unknown>) => ({
  id: "c",
  object: "chat.completion",
  model: "wire-model",
  choices: [
    { index: 0, finish_reason: "stop", message: { role: "assistant", content: null, ...message } },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

const wire = new Loopback();
let n = 0;
beforeAll(async () => {
  wire.routes.set("/v1/chat/completions", (_req, res) => {
    const done = ++n % 2 === 1;
    const call = {
      id: `call_${n}`,
      type: "function",
      function: { name: "done", arguments: '{"answer":"3"}' },
    };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(reply(done ? { tool_calls: [call] } : { content: "3" })));
  });
  await wire.start();
});
afterAll(() => wire.stop());

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

/** A summary without what differs from run to run (latency). */
const stable = (out: string) => {
  const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
    total: number;
    done: number;
    groups: Record<string, unknown>[];
  };
  const groups = s.groups.map(({ mean_latency_ms: _m, p95_latency_ms: _p, ...g }) => g);
  return { total: s.total, done: s.done, groups };
};
const table = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => !l.startsWith("report:"))
    .map((l) => l.replace(/latency mean \d+ ms p95 \d+ ms/, "latency _"));

describe.skipIf(REDIS_MISSING !== undefined || !built)(
  "spell run --repeat --queue",
  { timeout: 180_000 },
  () => {
    it("runs the K casts on two workers with the same progress and summary as a local --repeat", async () => {
      const dir = mkdtempSync(join(tmpdir(), "run-repeat-queue-"));
      writeFileSync(join(dir, "adder.yaml"), SPELL);
      const env = { R_BASE: `${wire.origin}/v1`, R_KEY: "sk-test-repeat-000000" };
      const args = ["run", "adder.yaml", "--repeat", "12", "--concurrency", "3"];
      const l = await runCli([...args, "--out", "local"], env, dir);
      expect(l.code, l.stderr).toBe(0);
      expect(wire.requests).toHaveLength(12);

      const redis = await RedisServer.start();
      cleanup.push(() => redis.close());
      const workers: WorkerProcess[] = [1, 2].map(() =>
        startWorker(["--queue", redis.url, "--concurrency", "2"], env, dir),
      );
      cleanup.push(() => Promise.all(workers.map((w) => w.stop())).then(() => undefined));
      await Promise.all(workers.map((w) => w.waitFor("waiting for casts")));
      // The run itself is pointed at no server (port 9, nothing listens): only workers cast.
      const nowhere = { R_BASE: "http://127.0.0.1:9/v1", R_KEY: "sk-unused-000000" };
      const q = await runCli([...args, "--out", "queued", "--queue", redis.url], nowhere, dir);
      expect(q.code, q.stderr).toBe(0);

      expect(q.stderr).toMatch(/12\/12 casts/); // eval's progress line, as the local run's
      expect(l.stderr).toMatch(/12\/12 casts/);
      // Twelve casts wait on their jobs at once: no warning about the listeners that takes.
      expect(q.stderr).not.toContain("Warning");
      expect(stable(join(dir, "queued"))).toEqual(stable(join(dir, "local")));
      expect(table(q.stdout)).toEqual(table(l.stdout));
      expect(q.stdout).toContain("6/12 passed (50");
      // Every cast ran on a worker: their logs account for all twelve; the server saw twelve more.
      const ran = workers.map((w) => (w.log().match(/cast done/g) ?? []).length);
      expect(ran.reduce((a, b) => a + b, 0)).toBe(12);
      expect(wire.requests).toHaveLength(24);
    });
  },
);

describe.skipIf(!built)("spell run --queue without --repeat", { timeout: 60_000 }, () => {
  it("is a usage error that says --queue goes with --repeat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-queue-alone-"));
    writeFileSync(join(dir, "adder.yaml"), SPELL);
    const env = { R_BASE: "http://127.0.0.1:9/v1", R_KEY: "sk-unused-000000" };
    const r = await runCli(["run", "adder.yaml", "--queue", "redis://127.0.0.1:9"], env, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("--queue goes with --repeat K");
  });
});
