// `spell run FILE --repeat K`: K independent casts of the spell's intent through the eval
// scheduler, with eval's progress and summary; a cast passes when it ended by `done`.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passAtK, passHatK } from "../../src/eval/stats.js";
import { runCli } from "../eval/support/harness.js";
import { Loopback } from "../support/loopback-http.js";

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

/** Odd requests answer by calling done, even ones with text: half the casts end by done. */
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

describe("spell run --repeat", { timeout: 90_000 }, () => {
  it("casts K times through the eval scheduler: eval's progress, summary and report; passes are casts ended by done", async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-repeat-"));
    writeFileSync(join(dir, "adder.yaml"), SPELL);
    const env = { R_BASE: `${wire.origin}/v1`, R_KEY: "sk-test-repeat-000000" };
    const r = await runCli(
      ["run", "adder.yaml", "--repeat", "4", "--concurrency", "2", "--out", "report"],
      env,
      dir,
    );
    expect(r.stderr).toMatch(/4\/4 casts/); // eval's progress line
    expect(r.code).toBe(0);
    expect(wire.requests).toHaveLength(4);
    const rows = readFileSync(join(dir, "report", "results.jsonl"), "utf8")
      .trim()
      .split("\n");
    const statuses = rows.map((l) => (JSON.parse(l) as { status: string }).status).sort();
    expect(statuses).toEqual(["fail", "fail", "pass", "pass"]);
    const summary = JSON.parse(readFileSync(join(dir, "report", "summary.json"), "utf8")) as {
      groups: { casts: number; pass_rate: number; pass_at_k: number; pass_hat_k: number }[];
    };
    expect(summary.groups[0]).toMatchObject({
      casts: 4,
      pass_rate: 0.5,
      pass_at_k: passAtK(4, 2, 4),
      pass_hat_k: passHatK(4, 2, 4),
    });
    expect(r.stdout).toContain("2/4 passed (50");
    expect(r.stdout).toContain("report: report");
  });
});
