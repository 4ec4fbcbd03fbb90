import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLLM } from "../../src/llm/registry.js";
import { costOf, priceOf } from "../../src/llm/prices.js";
import { loadSpellText } from "../../src/spell/index.js";
import { body, testContext, withProvider } from "../support/providers.js";

const dir = mkdtempSync(join(tmpdir(), "cost-test-"));
const ask = [{ role: "user" as const, content: "capital of France?" }];

async function castOf(llm: string, intent = "go") {
  const text = `llm: ${llm}\nidentity: {}\ncircle: { gates: [done, echo], wards: [{ max_turns: 4 }] }\n`;
  const loaded = await loadSpellText(text, join(dir, "spell.yaml"), { loomPath: "memory" });
  return loaded.cantrip!.cast(intent);
}

describe("the price table", () => {
  it("knows a listed model, and its dated snapshots, per provider", () => {
    expect(priceOf("openai", "gpt-4.1")).toEqual({ input: 2, output: 8, cached: 0.5 });
    expect(priceOf("openai", "gpt-4.1-2025-04-14")).toEqual(priceOf("openai", "gpt-4.1"));
    expect(priceOf("anthropic", "claude-sonnet-4-5-20250929")).toEqual(
      priceOf("anthropic", "claude-sonnet-4-5"),
    );
  });

  it("an unknown model has no price: never a guessed 0, never a sibling's price", () => {
    expect(priceOf("openai", "gpt-9-turbo")).toBeUndefined();
    // A listed name's prefix is not a match unless what follows is a date.
    expect(priceOf("openai", "gpt-4.1-ultra")).toBeUndefined();
    expect(priceOf("scripted", undefined)).toBeUndefined();
  });

  it("turns usage into USD: uncached input, cached input and output at their own rates", () => {
    const usage = { promptTokens: 1200, completionTokens: 7, cachedTokens: 1024 };
    // (176 × 2 + 1024 × 0.5 + 7 × 8) / 1e6
    expect(costOf(usage, { input: 2, output: 8, cached: 0.5 })).toBeCloseTo(0.00092, 12);
    // No cached rate: cached tokens cost what input does.
    expect(costOf(usage, { input: 2, output: 8 })).toBeCloseTo(0.002456, 12);
  });
});

describe("cost of a cast", () => {
  it("a spell's llm block sets the price: each turn is priced, the cast sums them", async () => {
    const r = await castOf(
      `{ provider: scripted, price: { input: 3, output: 15 }, usage: { prompt_tokens: 1000, completion_tokens: 100 }, responses: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { content: end }] }`,
    );
    expect(r.turns).toBe(2);
    expect(r.usage.costUsd).toBeCloseTo((2 * (1000 * 3 + 100 * 15)) / 1e6, 12);
    const turns = r.loom.turns();
    expect(turns.map((t) => t.cost_usd)).toEqual([0.0045, 0.0045]);
    expect(turns[0]!.llm).toEqual({ provider: "scripted", model: null });
  });

  it("a model without a price leaves the cost unknown (undefined), not 0", async () => {
    const r = await castOf(
      `{ provider: scripted, usage: { prompt_tokens: 10, completion_tokens: 1 }, responses: [{ content: end }] }`,
    );
    expect(r.usage.costUsd).toBeUndefined();
    expect(r.loom.turns()[0]!.cost_usd).toBeUndefined();
  });

  it("openrouter: the cost the response reports (usage.cost) is the turn's cost (loopback)", async () => {
    await withProvider([body("openai/openrouter-fallback.json")], async (server) => {
      const llm = await createLLM(
        { provider: "openrouter", model: "openrouter/auto", baseUrl: `${server.url}/v1` },
        testContext({ OPENROUTER_API_KEY: "sk-or-test-0123456789abcdef" }),
      );
      const r = await llm.query(ask);
      expect(r.costUsd).toBe(0.000222);
      expect(llm.provider).toBe("openrouter");
      expect(llm.model).toBe("openrouter/auto");
    });
  });

  it("openai through the registry: priced from the table (loopback)", async () => {
    await withProvider([body("openai/chat-text.json")], async (server) => {
      const llm = await createLLM(
        { provider: "openai", model: "gpt-4.1", baseUrl: `${server.url}/v1` },
        testContext({ OPENAI_API_KEY: "sk-test-0123456789abcdef0123" }),
      );
      const r = await llm.query(ask);
      expect(r.costUsd).toBeCloseTo(0.00092, 12);
    });
  });
});
