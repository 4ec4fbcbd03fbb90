/**
 * A quote of a model's text cut short must not keep the start of a secret: the loom redacts at
 * rest, but a redactor never knows a secret's first characters alone. A tool call whose
 * arguments are not JSON, the secret written just before where a quote would be cut.
 * Fake key, loopback server only.
 */
import { createServer } from "node:http";
import { inspect } from "node:util";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LAST_UTTERANCE_CHARS, truncatedChild } from "../../src/circle/spawn/outcome.js";
import { truncationSummary } from "../../src/core/outcome.js";
import { cutQuote } from "../../src/core/cut-quote.js";
import { loadSpell } from "../../src/spell/index.js";
import { fetchGate } from "../../src/circle/gates/index.js";
import { fileGateContext } from "../support/gate-context.js";
import { GateBudget } from "../../src/circle/gate-budget.js";
import { Redactor } from "../../src/core/redact.js";
import { parseTriageReply } from "../../src/council/triage-agent.js";
import { parseJudgement } from "../../src/eval/judge.js";
import { fromSDKError } from "../../src/llm/providers/sdk-errors.js";

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

describe("a model's or provider's text that is not JSON, quoted in an error", () => {
  const start = KEY.slice(0, 4);

  it("the eval judge's malformed judgement is cut without a secret's start", () => {
    const error = parseJudgement(`${"a ".repeat(97)}x ${KEY} more`).error ?? "";
    expect(error).toContain("malformed judgement (not JSON)");
    expect(error).not.toContain(start);
  });

  it("the council's triage reply: neither the parser's quote nor the excerpt keeps a secret's start", () => {
    for (const reply of [`x ${KEY}`, `${"a ".repeat(77)}x ${KEY} more`]) {
      expect(() => parseTriageReply(reply, () => [])).toThrow(/not a JSON object/);
      try {
        parseTriageReply(reply, () => []);
      } catch (err) {
        // The whole key, where quoted whole, is redacted where it leaves; a part of it would not be.
        expect((err as Error).message.split(KEY).join("")).not.toContain(start);
      }
    }
  });

  it("a provider's body the SDK could not parse: the coded error and its cause keep no start of the key", () => {
    const redactor = new Redactor();
    redactor.add(KEY);
    let parseError: unknown;
    try {
      JSON.parse(`x ${KEY}`);
    } catch (err) {
      parseError = err;
    }
    const coded = fromSDKError(parseError, "openai", (t) => redactor.redact(t)) as Error;
    expect(coded.message).toContain("not valid JSON");
    expect(inspect(coded, { depth: Infinity, showHidden: true })).not.toContain(start);
  });
});

describe("a refused gate call's arguments, cut for the loom", () => {
  it("keep no start of a secret", () => {
    const budget = new GateBudget(10);
    const encoded = JSON.stringify({ text: `${"a ".repeat(92)}x ${KEY} ${"y".repeat(100)}` });
    const refused = budget.before("echo", encoded)!;
    expect(refused.record.arguments).toMatch(/bytes, cut\]$/);
    expect(refused.record.arguments).not.toContain(KEY.slice(0, 4));
  });
});

describe("a turn event's error line, cut", () => {
  it("keeps no start of a secret", async () => {
    // The model calls a gate by a name holding a secret: the refusal's line quotes the name.
    const gate = `g${"a-".repeat(80)}_ ${KEY}`;
    const dir = mkdtempSync(join(tmpdir(), "cut-event-"));
    writeFileSync(
      join(dir, "spell.yaml"),
      `llm:\n  provider: scripted\n  responses:\n    - tool_calls: [{ gate: ${JSON.stringify(gate)} }]\n    - tool_calls: [{ gate: done, args: { answer: ok } }]\nidentity: {}\ncircle:\n  gates: [done]\n  wards: [{ max_turns: 3 }]\n`,
    );
    const loaded = await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });
    const errors: string[] = [];
    await loaded.cantrip!.cast("go", {
      onEvent: (e) => {
        if (e.type === "step_complete" && e.error) errors.push(e.error);
      },
    });
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/^unknown gate/);
    expect(errors[0]!.split(KEY).join("")).not.toContain(KEY.slice(0, 4));
  });
});

describe("a fetch gate's failed answer, quoted", () => {
  it("keeps no start of a secret the server echoed", async () => {
    const body = `${"a ".repeat(994)}x ${KEY} more`;
    const gate = fetchGate({
      allow: ["http://127.0.0.1:9"],
      fetch: () => Promise.resolve(new Response(body, { status: 401 })),
    });
    const failed = await Promise.resolve()
      .then(() => gate.execute({ url: "http://127.0.0.1:9/x" }, fileGateContext))
      .then(
        () => "",
        (err: unknown) => (err as Error).message,
      );
    expect(failed).toContain("answered 401");
    expect(failed).not.toContain(KEY.slice(0, 4));
  });
});
