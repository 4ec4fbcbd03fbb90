// `spell eval` and cost: the built CLI against the loopback OpenAI-wire server, the spell on a
// priced model of the table (openai/gpt-4.1: $2 in, $8 out per million tokens). The server
// answers every request with 10 prompt and 5 completion tokens: one query costs
// 10 × 2e-6 + 5 × 8e-6 = $0.00006, known exactly.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ADDER, envFor, evalFolder, runCli, wireServersPerTest } from "./support/harness.js";

const start = wireServersPerTest();

const QUERY_USD = 10 * 2e-6 + 5 * 8e-6;
const PRICED = ADDER.replace("model: wire-model", "model: gpt-4.1");

const rows = (out: string) =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const groupOf = (out: string) =>
  (
    JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
      groups: Record<string, unknown>[];
    }
  ).groups[0]!;

async function evalRun(cases: string) {
  const server = await start({});
  const dir = evalFolder(`kind: eval\nname: priced\nspells: [./adder.yaml]\ncases:\n${cases}`);
  writeFileSync(join(dir, "adder.yaml"), PRICED);
  // A judge on the same priced model: its endpoint comes from OPENAI_BASE_URL.
  const env = {
    ...envFor(server),
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: "sk-test-judge-0000",
  };
  const r = await runCli(["eval", "eval.yaml", "--out", "out"], env, dir);
  return { r, out: join(dir, "out") };
}

describe("spell eval and cost (a priced model)", { timeout: 120_000 }, () => {
  it("reports each cast's cost and the run's in summary.json and on stdout; max_cost_usd passes under, fails over", async () => {
    const { r, out } =
      await evalRun(`  - { name: under, intent: "What is 1 + 2?", expect: [{ max_cost_usd: 0.001 }] }
  - { name: over, intent: "What is 2 + 2?", expect: [{ max_cost_usd: 0.00001 }] }
`);
    const all = rows(out);
    expect(all.map((x) => [x["case"], x["status"]])).toEqual([
      ["under", "pass"],
      ["over", "fail"],
    ]);
    for (const row of all) expect(row["cost_usd"]).toBeCloseTo(QUERY_USD, 12);
    expect(all[1]!["reason"]).toContain("max_cost_usd: expected at most 0.00001");
    expect(groupOf(out)["cost_usd"]).toBeCloseTo(2 * QUERY_USD, 12);
    expect(r.stdout).toContain("cost <$0.001 ");
  });

  it("the judge's own cost is counted in the run's cost", async () => {
    const { r, out } = await evalRun(`  - name: judged
    intent: "What is 1 + 2?"
    expect: [{ judge: { llm: openai/gpt-4.1, rubric: "Is {{result}} right?" } }]
`);
    expect(rows(out).map((x) => x["status"])).toEqual(["pass"]);
    // One cast's query and one judge's query, both at gpt-4.1's price.
    expect(groupOf(out)["cost_usd"]).toBeCloseTo(2 * QUERY_USD, 12);
    expect(r.stdout).toContain("cost <$0.001 ");
  });
});
