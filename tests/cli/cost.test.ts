import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "cli-cost-"));
const spell = (name: string, price: string) => {
  const path = join(dir, name);
  writeFileSync(
    path,
    `llm:
  provider: scripted
  ${price}usage: { prompt_tokens: 1000, completion_tokens: 100 }
  responses: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { content: end }]
identity: {}
circle: { gates: [done, echo], wards: [{ max_turns: 3 }] }
intent: go
`,
  );
  return path;
};
const priced = spell("priced.yaml", "price: { input: 3, output: 15 }\n  ");
const unpriced = spell("unpriced.yaml", "");

describe("spell run shows what a cast cost", () => {
  it("the last line on stderr has the cost in USD", async () => {
    const o = io();
    expect(await runCommand(priced, { loom: "memory" }, o)).toBe(EXIT.ok);
    expect(o.err).toMatch(
      /terminated \(text\) after 2 turns · 2200 tokens \(.*\) · \$0\.009000 · entity /,
    );
  });

  it("--json has usage.cost_usd", async () => {
    const o = io();
    expect(await runCommand(priced, { loom: "memory", json: true }, o)).toBe(EXIT.ok);
    const out = JSON.parse(o.out) as { usage: { cost_usd: number } };
    expect(out.usage.cost_usd).toBeCloseTo(0.009, 12);
  });

  it("a model without a price says the cost is unknown: `cost unknown`, and null in --json", async () => {
    const o = io();
    expect(await runCommand(unpriced, { loom: "memory" }, o)).toBe(EXIT.ok);
    expect(o.err).toMatch(/ · cost unknown · entity /);
    const j = io();
    expect(await runCommand(unpriced, { loom: "memory", json: true }, j)).toBe(EXIT.ok);
    expect((JSON.parse(j.out) as { usage: { cost_usd: unknown } }).usage.cost_usd).toBeNull();
  });
});
