/**
 * How the loop takes the LLM's reply (src/core/loop.ts, `ask`/`received`): a provider that
 * throws or rejects fails the cast with its error; one stopped by the caller's signal mid-query
 * leaves a truncated turn; a reply is announced to listeners before its gates run. These pin
 * what the loop did when the query was an async function of its own (the hot path was reshaped
 * for bench/loop.bench.mjs; the tests pass before and after).
 */
import { describe, expect, it, vi } from "vitest";
import { Cantrip, Circle, doneGate, echoGate, ScriptedLLM } from "../../src/index.js";
import type { LLM, LLMResponse } from "../../src/core/contract.js";
import type { CantripEvent } from "../../src/core/events.js";
import { SystemError } from "../../src/core/errors.js";

const circle = () => new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 4 }] });

const cantripOf = (llm: LLM) => new Cantrip({ llm, identity: {}, circle: circle() });

describe("the loop's query", () => {
  it("an LLM that throws at once fails the cast with its error", async () => {
    const llm: LLM = {
      name: "throws",
      query: () => {
        throw new SystemError("provider_error", "refused at once");
      },
    };
    const r = await cantripOf(llm).cast("go");
    expect(r.status).toBe("failed");
    expect((r as { error?: Error }).error?.message).toBe("refused at once");
    expect(r.turns).toBe(0);
  });

  it("an LLM that rejects fails the cast with its error", async () => {
    const r = await cantripOf(
      new ScriptedLLM({ responses: [{ error: { status: 503, message: "overloaded" } }] }),
    ).cast("go");
    expect(r.status).toBe("failed");
    expect((r as { error?: Error }).error?.message).toBe("overloaded");
  });

  it("a query the caller stops is a truncated turn, not a failure", async () => {
    const controller = new AbortController();
    const llm: LLM = {
      name: "waits",
      query: (_messages, options) =>
        new Promise<LLMResponse>((_resolve, reject) => {
          options?.signal?.addEventListener("abort", () => reject(new Error("aborted")));
          setImmediate(() => controller.abort("interrupted"));
        }),
    };
    const c = cantripOf(llm);
    const r = await c.cast("go", { signal: controller.signal });
    expect(r).toMatchObject({ status: "truncated", truncated: true, turns: 1 });
    expect(c.loom.turns()).toHaveLength(1);
    expect(c.loom.turns()[0]).toMatchObject({ truncated: true, reason: r.reason });
  });

  it("an LLM that may ignore the signal: one abort listener serves the cast's queries, and a stop cuts the query in flight", async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    let queries = 0;
    const llm: LLM = {
      name: "ignores the signal",
      query: (_messages, options) => {
        signal = options?.signal;
        queries++;
        // Two echo turns, then a query that never answers: the caller stops it.
        if (queries <= 2)
          return Promise.resolve({
            content: null,
            toolCalls: [
              {
                id: `c${queries}`,
                name: "echo",
                arguments: '{"text":"hi"}',
                input: { text: "hi" },
              },
            ],
            usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
          });
        setImmediate(() => controller.abort("interrupted"));
        return new Promise<LLMResponse>(() => undefined);
      },
    };
    const added = vi.spyOn(EventTarget.prototype, "addEventListener");
    try {
      const c = cantripOf(llm);
      const r = await c.cast("go", { signal: controller.signal });
      expect(r).toMatchObject({ status: "truncated", reason: "interrupted", turns: 3 });
      expect(c.loom.turns()[2]).toMatchObject({ truncated: true, reason: "interrupted" });
      const onQuerySignal = added.mock.calls.filter(
        (call, i) => added.mock.contexts[i] === signal && call[0] === "abort",
      );
      expect(onQuerySignal).toHaveLength(1);
    } finally {
      added.mockRestore();
    }
  });

  it("a listener hears each reply (message_complete, usage) before its gates run", async () => {
    const events: CantripEvent[] = [];
    const llm = new ScriptedLLM({
      responses: [
        { content: "first", tool_calls: [{ gate: "echo", args: { text: "a" } }] },
        { tool_calls: [{ gate: "done", args: { answer: "ok" } }] },
      ],
    });
    const r = await cantripOf(llm).cast("go", { onEvent: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "terminated", result: "ok", turns: 2 });
    const order = events
      .map((e) => e.type)
      .filter((t) =>
        ["step_start", "message_start", "message_complete", "usage", "tool_call"].includes(t),
      );
    expect(order).toEqual([
      "step_start",
      "message_start",
      "message_complete",
      "usage",
      "tool_call",
      "step_start",
      "message_start",
      "message_complete",
      "usage",
      "tool_call",
    ]);
    expect(events.find((e) => e.type === "message_complete")).toMatchObject({
      sequence: 1,
      content: "first",
    });
  });
});

describe("a reply's tool calls in message_complete", () => {
  it("carry the code a turn is about to run, and a redacting listener hides a secret in them", async () => {
    const { Redactor } = await import("../../src/core/redact.js");
    const { redactingListener } = await import("../../src/core/redact-stream.js");
    const redactor = new Redactor();
    redactor.add("sk-hidden-value-123");
    const seen: CantripEvent[] = [];
    const raw: CantripEvent[] = [];
    const llm = new ScriptedLLM({
      responses: [
        { tool_calls: [{ gate: "echo", args: { text: "curl -H sk-hidden-value-123" } }] },
        { tool_calls: [{ gate: "done", args: { answer: "ok" } }] },
      ],
    });
    const listen = redactingListener((e) => seen.push(e), redactor);
    await cantripOf(llm).cast("go", {
      onEvent: (e) => {
        raw.push(e);
        listen(e);
      },
    });
    const asked = (list: CantripEvent[]) =>
      list.filter((e) => e.type === "message_complete").map((e) => e.toolCalls);
    expect(asked(raw)[0]).toEqual([
      { name: "echo", arguments: JSON.stringify({ text: "curl -H sk-hidden-value-123" }) },
    ]);
    expect(asked(raw)[1]).toEqual([{ name: "done", arguments: '{"answer":"ok"}' }]);
    expect(JSON.stringify(asked(seen))).not.toContain("sk-hidden-value-123");
    expect(JSON.stringify(asked(seen))).toContain("[REDACTED]");
  });

  it("are left out of a reply that made none", async () => {
    const events: CantripEvent[] = [];
    await cantripOf(new ScriptedLLM({ responses: [{ content: "just text" }] })).cast("go", {
      onEvent: (e) => events.push(e),
    });
    const complete = events.find((e) => e.type === "message_complete")!;
    expect("toolCalls" in complete).toBe(false);
  });
});
