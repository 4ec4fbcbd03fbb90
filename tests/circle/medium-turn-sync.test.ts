/**
 * The medium turn protocol (src/circle/medium-turn.ts) answers a turn whose gate calls all
 * answer synchronously without a promise: the loop then takes the step without an extra tick
 * (bench/loop.bench.mjs). A turn with an asynchronous call is a promise, and either way the calls
 * run in order, every call gets its tool message, and nothing runs after `done` (LOOP-3).
 */
import { describe, expect, it } from "vitest";
import { Circle } from "../../src/circle/circle.js";
import type { Gate } from "../../src/circle/gate.js";
import { doneGate, echoGate } from "../../src/circle/gates/index.js";
import type { LLMResponse } from "../../src/core/contract.js";
import type { MediumStep, TurnScope } from "../../src/core/medium.js";

const ran: string[] = [];

const later: Gate = {
  name: "later",
  description: "Answers after a tick.",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: (args) =>
    new Promise((resolve) =>
      setImmediate(() => {
        ran.push(`later ${String(args["text"])}`);
        resolve(`late ${String(args["text"])}`);
      }),
    ),
};

const noted: Gate = {
  name: "noted",
  description: "Answers at once, noting that it ran.",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: (args) => {
    ran.push(`noted ${String(args["text"])}`);
    return String(args["text"]);
  },
};

function session() {
  const circle = new Circle({
    gates: [doneGate(), echoGate(), later, noted],
    wards: [{ max_turns: 5 }],
  });
  return circle.open({ entity: undefined, depth: 0 });
}

const scope: TurnScope = {
  entityId: "ent_test",
  turnId: "turn_test",
  signal: new AbortController().signal,
  requireDone: false,
};

function reply(...calls: [string, Record<string, unknown>][]): LLMResponse {
  return {
    content: null,
    toolCalls: calls.map(([name, input], i) => ({
      id: `c${i}`,
      name,
      arguments: JSON.stringify(input),
      input,
    })),
    usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
  };
}

const toolMessages = (step: MediumStep) =>
  step.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content]);

describe("a medium turn whose gates answer synchronously", () => {
  it("is answered without a promise, done ending it and the calls after done skipped", () => {
    ran.length = 0;
    const step = session().execute(
      reply(["noted", { text: "a" }], ["done", { answer: "ok" }], ["noted", { text: "b" }]),
      scope,
    );
    // Before: every turn was a promise, even one whose gates had all answered.
    expect(step).not.toBeInstanceOf(Promise);
    const s = step as MediumStep;
    expect(ran).toEqual(["noted a"]);
    expect(s.outcome).toEqual({ kind: "done", result: "ok" });
    expect(s.gateCalls.map((r) => r.gate_name)).toEqual(["noted", "done"]);
    expect(toolMessages(s)).toEqual([
      ["c0", "a"],
      ["c1", "ok"],
      ["c2", "skipped: done was called earlier in this utterance (LOOP-3)"],
    ]);
    expect(s.observation).toBe("noted: a\ndone: ok");
    expect(s.isError).toBe(false);
  });

  it("is a promise once a call answers later; the calls still run in order", async () => {
    ran.length = 0;
    const step = session().execute(
      reply(
        ["noted", { text: "a" }],
        ["later", { text: "b" }],
        ["noted", { text: "c" }],
        ["echo", {}],
      ),
      scope,
    );
    expect(step).toBeInstanceOf(Promise);
    const s = await step;
    expect(ran).toEqual(["noted a", "later b", "noted c"]);
    expect(s.outcome).toEqual({ kind: "continue" });
    expect(toolMessages(s)).toEqual([
      ["c0", "a"],
      ["c1", "late b"],
      ["c2", "c"],
      ["c3", 'echo: missing required argument "text"'],
    ]);
    expect(s.isError).toBe(true);
  });
});
