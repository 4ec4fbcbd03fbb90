/**
 * A cast's stop (core/cast-signal.ts, CastStop): its AbortController, and whether it stopped as a
 * plain field that the loop and the medium check every turn instead of `signal.aborted` (issue 40:
 * every AbortSignal of Node 20 has a hidden class of its own, and V8 threw away the loop's
 * optimized code at every cast). What a cast does when stopped is unchanged: the signal gates and
 * LLMs hold is aborted with the same reason, the calls left in the utterance are skipped with it,
 * and a cast that ended leaves its signal aborted with "parent_terminated" (COMP-9).
 */
import { describe, expect, it } from "vitest";
import { Circle } from "../../src/circle/circle.js";
import type { Gate } from "../../src/circle/gate.js";
import { doneGate } from "../../src/circle/gates/index.js";
import { CastStop } from "../../src/core/cast-signal.js";
import type { LLM, LLMResponse, QueryOptions } from "../../src/core/contract.js";
import type { MediumStep, TurnScope } from "../../src/core/medium.js";
import { Cantrip, Loom, ScriptedLLM } from "../../src/index.js";

const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0 };

function reply(...names: string[]): LLMResponse {
  return {
    content: null,
    toolCalls: names.map((name, i) => ({ id: `c${i}`, name, arguments: "{}", input: {} })),
    usage,
  };
}

const toolMessages = (step: MediumStep) =>
  step.messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("a cast's stop", () => {
  it("aborts its signal with the first reason it is given, and keeps that reason", () => {
    const stop = new CastStop();
    const { signal } = stop;
    const heard: unknown[] = [];
    signal.addEventListener("abort", () => heard.push([stop.reason, signal.reason]));
    expect(stop.reason).toBeNull();
    expect(signal.aborted).toBe(false);
    stop.stop("timeout_ms");
    stop.stop("parent_terminated");
    expect(stop.reason).toBe("timeout_ms");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("timeout_ms");
    // A listener already sees the stop's reason: both say the same thing.
    expect(heard).toEqual([["timeout_ms", "timeout_ms"]]);
  });

  it("the medium skips the calls left once the cast stopped, with the stop's reason", () => {
    const circle = new Circle({ gates: [doneGate()], wards: [{ max_turns: 3 }] });
    const session = circle.open({ entity: undefined, depth: 0 });
    const stop = new CastStop();
    stop.stop("cancelled");
    const scope: TurnScope = {
      entityId: "ent_test",
      turnId: "turn_test",
      signal: stop.signal,
      stop,
      requireDone: false,
    };
    const step = session.execute(reply("done", "done"), scope) as MediumStep;
    expect(toolMessages(step)).toEqual([
      "skipped: the loop was stopped (cancelled)",
      "skipped: the loop was stopped (cancelled)",
    ]);
    expect(step.gateCalls).toEqual([]);
  });

  it("a scope without a stop is read from its signal, as before", () => {
    const circle = new Circle({ gates: [doneGate()], wards: [{ max_turns: 3 }] });
    const session = circle.open({ entity: undefined, depth: 0 });
    const controller = new AbortController();
    controller.abort({ not: "a string" });
    const scope: TurnScope = {
      entityId: "ent_test",
      turnId: "turn_test",
      signal: controller.signal,
      requireDone: false,
    };
    const step = session.execute(reply("done"), scope) as MediumStep;
    expect(toolMessages(step)).toEqual(["skipped: the loop was stopped (aborted)"]);
  });

  it("a gate that stops the cast's caller mid-utterance: the calls after it are skipped and recorded so", async () => {
    const controller = new AbortController();
    const stopper: Gate = {
      name: "stopper",
      description: "Cancels the cast's caller.",
      parameters: { type: "object", properties: {} },
      execute: () => {
        controller.abort("cancelled");
        return "stopped";
      },
    };
    const c = new Cantrip({
      llm: new ScriptedLLM({
        responses: [{ tool_calls: [{ gate: "stopper" }, { gate: "done" }] }],
      }),
      identity: {},
      circle: new Circle({ gates: [doneGate(), stopper], wards: [{ max_turns: 3 }] }),
      loom: new Loom(),
    });
    const r = await c.cast("go", { signal: controller.signal });
    expect(r).toMatchObject({ truncated: true, reason: "cancelled", turns: 1 });
    const [turn] = c.loom.turns();
    expect(turn).toMatchObject({ truncated: true, reason: "cancelled" });
    expect(turn!.gate_calls.map((g) => g.gate_name)).toEqual(["stopper"]);
  });

  it("the signal an LLM was given is aborted with parent_terminated once the cast ended", async () => {
    const signals: AbortSignal[] = [];
    const inner = new ScriptedLLM({ responses: [{ content: "fine" }] });
    const llm: LLM = {
      name: "watching",
      honoursSignal: true,
      query: (messages, options: QueryOptions) => {
        signals.push(options.signal!);
        expect(options.signal!.aborted).toBe(false);
        return inner.query(messages, options);
      },
    };
    const c = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 3 }] }),
    });
    expect(await c.cast("go")).toMatchObject({ terminated: true, result: "fine" });
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toBe("parent_terminated");
  });
});
