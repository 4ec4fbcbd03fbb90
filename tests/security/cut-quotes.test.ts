/**
 * A quote of a model's text cut short must not keep the start of a secret: the loom redacts at
 * rest, but a redactor never knows a secret's first characters alone. A tool call whose
 * arguments are not JSON, the secret written just before where a quote would be cut.
 * Fake key, loopback server only.
 */
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LAST_UTTERANCE_CHARS, truncatedChild } from "../../src/circle/spawn/outcome.js";
import { truncationSummary } from "../../src/core/outcome.js";
import { cutQuote } from "../../src/core/cut-quote.js";
import { loadSpell } from "../../src/spell/index.js";

const KEY = "fake-secret-value-0123456789abcdefghij";
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** An OpenAI-shaped server: the first reply calls `echo` with `args`, the second calls done. */
async function model(args: string): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const call =
        n++ === 0
          ? { id: "c1", type: "function", function: { name: "echo", arguments: args } }
          : {
              id: "c2",
              type: "function",
              function: { name: "done", arguments: '{"answer":"ok"}' },
            };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          model: "m",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: { role: "assistant", content: null, tool_calls: [call] },
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

describe("a quote of a model's text, cut short", () => {
  it("arguments that are not JSON: the observation keeps no start of a secret", async () => {
    const args = `{"text": "${"x".repeat(180)} ${KEY}`; // never closed
    const dir = mkdtempSync(join(tmpdir(), "cut-quotes-"));
    const spell = join(dir, "spell.yaml");
    writeFileSync(
      spell,
      `llm: { provider: openai, base_url: "${await model(args)}", api_key: "${KEY}", model: m }\n` +
        "identity: {}\ncircle:\n  gates: [done, echo]\n  wards: [{ max_turns: 3 }]\n",
    );
    const loaded = await loadSpell(spell, { loomPath: join(dir, "loom.jsonl") });
    const result = await loaded.cantrip!.cast("go");
    expect(result.status).toBe("terminated");
    const loom = readFileSync(join(dir, "loom.jsonl"), "utf8");
    expect(loom).toContain("arguments are not valid JSON");
    expect(loom).not.toContain(KEY.slice(0, 8));
  });
});

describe("a model's last words quoted in a truncated result", () => {
  // The secret starts just before where the quote is cut (200 characters of a cast's result,
  // LAST_UTTERANCE_CHARS of a child's).
  const lastWords = (at: number) =>
    `${"word ".repeat(Math.ceil(at / 5)).slice(0, at - 5)} ${KEY} more`;

  it("a cast's summary keeps no start of a secret", () => {
    const summary = truncationSummary("max_turns", 1, new Map(), lastWords(200));
    expect(summary).toContain("Last utterance");
    expect(summary).not.toContain(KEY.slice(0, 4));
  });

  it("a child's last utterance keeps no start of a secret", () => {
    const child = truncatedChild({
      status: "truncated",
      reason: "max_turns",
      turns: 1,
      result: "",
      entityId: "ent_1",
      lastUtterance: lastWords(LAST_UTTERANCE_CHARS),
    } as unknown as Parameters<typeof truncatedChild>[0]);
    expect(child.last_utterance).toMatch(/…$/);
    expect(child.last_utterance).not.toContain(KEY.slice(0, 4));
  });

  it("a cut at a space, or text short enough, is kept as it was", () => {
    expect(cutQuote("abc def", 3)).toBe("abc…");
    expect(cutQuote("abc def", 7)).toBe("abc def");
    expect(cutQuote("abcdef", 3)).toBe("…");
    expect(cutQuote(`{"k":"${"y".repeat(1000)}`, 600)).toBe(`{"k":"${"y".repeat(82)}…`);
  });
});
