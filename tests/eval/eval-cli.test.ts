// `spell eval` end to end: the built CLI (npm run build) against a loopback OpenAI-wire server in
// its own process, through the real openai SDK. The server answers each intent right a known
// number of times, so pass rates and pass@k / pass^k are known exactly.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envFor, evalFolder, runCli, THREE_CASES, wireServersPerTest } from "./support/harness.js";

const start = wireServersPerTest();

const rows = (out: string) =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const summaryOf = (out: string) =>
  JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
    done: number;
    total: number;
    interrupted: boolean;
    rate_limited: number;
    groups: Record<string, number | null | Record<string, unknown>>[];
  };

// A: right 4 of 4, B: 2 of 4, C: 0 of 4 (n = 4 each, k = 4).
const PATTERN = { correct: { "What is 2 + 2?": 2, "What is 3 + 2?": 0 } };

describe("spell eval", { timeout: 120_000 }, () => {
  it("scores every cast: pass rate, pass@k and pass^k exact, rows streamed, rewards with reasons, junit", async () => {
    const server = await start(PATTERN);
    const dir = evalFolder(THREE_CASES);
    const r = await runCli(["eval", "eval.yaml", "--out", "out"], envFor(server), dir);
    expect(r.stderr).toContain("eval: 12/12 casts");
    expect(r.code).toBe(0); // 6/12 = 0.5, not below pass.rate 0.5
    const out = join(dir, "out");
    const g = summaryOf(out).groups[0]!;
    expect(g).toMatchObject({ passed: 6, failed: 6, errored: 0, pass_rate: 0.5, k: 4 });
    // pass@4: A 1, B 1 − C(2,4)/C(4,4) = 1, C 0 → 2/3; pass^4: A 1, B C(2,4)/C(4,4) = 0, C 0 → 1/3.
    expect(g["pass_at_k"]).toBeCloseTo(2 / 3, 10);
    expect(g["pass_hat_k"]).toBeCloseTo(1 / 3, 10);
    expect(g["tokens"]).toBe(12 * 15);
    expect(g["cost_usd"]).toBeNull(); // no price known in this build: cost unknown, not 0
    const all = rows(out);
    expect(all).toHaveLength(12);
    expect(all.filter((x) => x["case"] === "B" && x["status"] === "pass")).toHaveLength(2);
    expect(all.find((x) => x["case"] === "C")!["reason"]).toContain("does not match /^5$/");
    const loom = readFileSync(join(out, "loom.jsonl"), "utf8").split("\n").filter(Boolean);
    const rewards = loom
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((x) => x["type"] === "reward");
    expect(rewards).toHaveLength(12);
    expect(rewards.filter((x) => x["reward"] === 1)).toHaveLength(6);
    expect(rewards.every((x) => typeof x["reason"] === "string" && x["reason"] !== "")).toBe(true);
    expect(loom.join("\n")).not.toContain("sk-test-eval-key-000000");
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit.match(/<testcase /g)).toHaveLength(3);
    expect(junit.match(/<failure /g)).toHaveLength(2);
    expect(r.stdout).toContain("pass@4 66.7%  pass^4 33.3%");
    // Below the verdict: exit 1.
    writeFileSync(join(dir, "eval.yaml"), THREE_CASES.replace("rate: 0.5", "rate: 0.6"));
    const below = await runCli(
      ["eval", "eval.yaml", "--out", "out2", "--filter", "A"],
      envFor(server),
      dir,
    );
    expect(below.code).toBe(0); // only case A (all right) with --filter
    const server2 = await start(PATTERN);
    const failing = await runCli(["eval", "eval.yaml", "--out", "out3"], envFor(server2), dir);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("is below pass.rate 0.6");
  });

  it("a 429 with Retry-After slows the run down instead of failing cases", async () => {
    const server = await start({ rateLimit: [3, 4] });
    const dir = evalFolder(THREE_CASES);
    const r = await runCli(["eval", "eval.yaml", "--out", "out"], envFor(server), dir);
    expect(r.code).toBe(0);
    expect((await server.stats()).rateLimited).toBe(2);
    const s = summaryOf(join(dir, "out"));
    expect(s.rate_limited).toBe(2);
    expect(s.groups[0]).toMatchObject({ passed: 12, errored: 0 });
    expect(r.stderr).toContain("rate limited 2 time(s)");
  });

  it("a provider that dies errors the cases left, reported apart from failures (exit 4)", async () => {
    const server = await start({ dieAt: 5 });
    const dir = evalFolder(THREE_CASES);
    const r = await runCli(
      ["eval", "eval.yaml", "--out", "out", "--concurrency", "1"],
      envFor(server),
      dir,
    );
    const g = summaryOf(join(dir, "out")).groups[0]!;
    expect(g).toMatchObject({ passed: 4, failed: 0, errored: 8, pass_rate: 1 });
    expect(r.stdout).toContain("8 errored");
    expect(r.code).toBe(4);
    expect(rows(join(dir, "out")).filter((x) => x["status"] === "error")[0]!["reason"]).toMatch(
      /connect|fetch|socket/i,
    );
  });

  it("a judge answering malformed text errors the case, and its tokens count", async () => {
    const server = await start({ judge: "Yes, this looks correct to me." });
    const dir = evalFolder(
      THREE_CASES.replace("repeat: 4", "repeat: 1").replace(
        "pass: { rate: 0.5 }",
        'expect: [{ judge: { llm: openai/wire-model, rubric: "Is {{result}} right for {{intent}}?" } }]\npass: { rate: 0.5 }',
      ),
    );
    // The judge's provider is the spell's (openai): its endpoint comes from OPENAI_BASE_URL.
    const env = {
      ...envFor(server),
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: "sk-test-judge-0000",
    };
    const r = await runCli(["eval", "eval.yaml", "--out", "out"], env, dir);
    const all = rows(join(dir, "out"));
    expect(all.map((x) => x["status"])).toEqual(["error", "error", "error"]);
    expect(all[0]!["reason"]).toContain("malformed judgement (not JSON)");
    expect(summaryOf(join(dir, "out")).groups[0]!["tokens"]).toBe(3 * 15 + 3 * 15);
    expect(r.code).toBe(4);
  });
});
