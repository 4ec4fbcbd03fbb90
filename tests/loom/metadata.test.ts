import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loomTreeCommand } from "../../src/cli/loom-export.js";
import { composeWards } from "../../src/core/wards.js";
import { Loom } from "../../src/loom/core/index.js";
import { readLoomFile } from "../../src/loom/jsonl/index.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import { loadSpellText } from "../../src/spell/index.js";
import { io } from "../support/io.js";

const dir = () => mkdtempSync(join(tmpdir(), "loom-meta-"));

async function cast(spell: string, loomPath = "memory") {
  const loaded = await loadSpellText(spell, join(dir(), "spell.yaml"), { loomPath });
  const result = await loaded.cantrip!.cast("go");
  loaded.cantrip!.loom.close();
  return result;
}

const PRICED = `llm:
  provider: scripted
  model: house-model
  price: { input: 2, output: 10, cached: 0.5 }
  usage: { prompt_tokens: 500, completion_tokens: 50, cached_tokens: 100 }
  responses:
    - tool_calls: [{ gate: sleepy, args: {} }]
    - tool_calls: [{ gate: echo, args: { text: b } }]
    - tool_calls: [{ gate: done, args: { answer: ok } }]
identity: {}
circle:
  gates: [done, echo, { name: sleepy, behavior: { delay_ms: 60, result: zzz } }]
  wards: [{ max_turns: 5 }]
`;

describe("loom format 3: who answered, what it cost, when each gate ran", () => {
  it("a new loom file is version 3; each turn has llm and cost_usd, each gate call its start and duration", async () => {
    const path = join(dir(), "loom.jsonl");
    const before = Date.now();
    await cast(PRICED, path);
    const read = readLoomFile(path);
    expect(read.version).toBe(3);
    const turns = new Loom(new JsonlStore(path)).turns();
    expect(turns).toHaveLength(3);
    // (400 × 2 + 100 × 0.5 + 50 × 10) / 1e6
    for (const t of turns) {
      expect(t.llm).toEqual({ provider: "scripted", model: "house-model" });
      expect(t.cost_usd).toBeCloseTo(0.00135, 12);
    }
    const sleepy = turns[0]!.gate_calls[0]!;
    expect(sleepy.gate_name).toBe("sleepy");
    expect(Date.parse(sleepy.started_at!)).toBeGreaterThanOrEqual(before - 1);
    // A gate that waits 60 ms ran at least about that long (a lower bound holds on any machine).
    expect(sleepy.duration_ms).toBeGreaterThanOrEqual(50);
    expect(typeof turns[1]!.gate_calls[0]!.duration_ms).toBe("number");
  });

  it("reads the frozen version-2 sample: no llm, no cost, no gate timing — and nothing breaks", () => {
    const loom = new Loom(new JsonlStore("tests/fixtures/loom-v2.jsonl"));
    const turns = loom.turns();
    expect(turns.length).toBeGreaterThan(0);
    for (const t of turns) {
      expect(t.llm).toBeUndefined();
      expect(t.cost_usd).toBeUndefined();
      for (const g of t.gate_calls) expect(g.started_at).toBeUndefined();
    }
  });

  it("reads the frozen version-3 sample", () => {
    expect(readLoomFile("tests/fixtures/loom-v3.jsonl").version).toBe(3);
    const [first] = new Loom(new JsonlStore("tests/fixtures/loom-v3.jsonl")).turns();
    expect(first!.llm).toEqual({ provider: "openai", model: "gpt-4.1" });
    expect(first!.cost_usd).toBe(0.00092);
    expect(first!.gate_calls[0]!.started_at).toBe("2026-11-26T10:00:00.120Z");
    expect(first!.gate_calls[0]!.duration_ms).toBe(3.5);
  });

  it("spell loom tree shows each turn's cost and the loom's totals", async () => {
    const path = join(dir(), "loom.jsonl");
    await cast(PRICED, path);
    const o = io();
    expect(await loomTreeCommand(path, o)).toBe(0);
    expect(o.out).toMatch(/#1 sleepy · \$0\.001350 {2}\[/);
    expect(o.out).toMatch(/total: 3 turns · 1650 tokens · \$0\.004050\n$/);
  });

  it("spell loom tree says a total is unknown when a turn has no price", async () => {
    const o = io();
    expect(await loomTreeCommand("tests/fixtures/loom-v2.jsonl", o)).toBe(0);
    expect(o.out).toMatch(
      /total: \d+ turns? · \d+ tokens · cost unknown \(\d+ turns? without a price\)\n$/,
    );
  });
});

describe("the max_cost_usd ward", () => {
  const spend = (wards: string, price = "price: { input: 1000, output: 0 }\n  ") => `llm:
  provider: scripted
  ${price}usage: { prompt_tokens: 1000, completion_tokens: 0 }
  responses:
    - tool_calls: [{ gate: echo, args: { text: a } }]
    - tool_calls: [{ gate: echo, args: { text: b } }]
    - tool_calls: [{ gate: echo, args: { text: c } }]
    - tool_calls: [{ gate: done, args: { answer: ok } }]
identity: {}
circle: { gates: [done, echo], wards: [{ max_turns: 10 }, ${wards}] }
`;

  it("truncates the cast once its cost reaches the ward (reason cost)", async () => {
    // Each turn costs 1000 tokens × $1000 / 1e6 = $1.
    const r = await cast(spend("{ max_cost_usd: 2 }"));
    expect(r.truncated).toBe(true);
    expect(r.reason).toBe("cost");
    expect(r.turns).toBe(2);
    expect(r.usage.costUsd).toBe(2);
    expect(r.result).toContain("Truncated by cost after 2 turns");
  });

  it("a turn whose price is unknown stops a cast under the ward (reason cost_unknown)", async () => {
    const r = await cast(spend("{ max_cost_usd: 2 }", ""));
    expect(r.truncated).toBe(true);
    expect(r.reason).toBe("cost_unknown");
    expect(r.turns).toBe(1);
  });

  it("composes with a child's by min, like other numeric wards", () => {
    expect(composeWards([{ max_cost_usd: 0.5 }], [{ max_cost_usd: 0.2 }])).toMatchObject({
      max_cost_usd: 0.2,
    });
    expect(composeWards([{ max_cost_usd: 0.1 }], [{ max_cost_usd: 3 }])).toMatchObject({
      max_cost_usd: 0.1,
    });
  });

  it("the file records the spend: stats read it back from the loom", async () => {
    const path = join(dir(), "loom.jsonl");
    await cast(spend("{ max_cost_usd: 2 }"), path);
    const costs = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"turn"'))
      .map((l) => (JSON.parse(l) as { cost_usd: number }).cost_usd);
    expect(costs).toEqual([1, 1]);
  });
});
