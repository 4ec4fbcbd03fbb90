/**
 * Loom format 3 stamps every gate call's record with when it began (`started_at`) and how long
 * it ran (`duration_ms`), however the call settles: answered at once, answered later, refused
 * by the turn's budget (issue 20), or denied by an approval rule (issue 25); a call refused
 * without a record is still told to `onUnrecorded`. Circle.callGate is the one place that does
 * it for every medium (its hot path was reshaped for bench/loop.bench.mjs: no behaviour change).
 */
import { describe, expect, it } from "vitest";
import { ApprovalPolicy } from "../../src/circle/approvals.js";
import { Circle } from "../../src/circle/circle.js";
import { GateBudget } from "../../src/circle/gate-budget.js";
import type { Gate, GateCallRecord, GateContext, GateOutcome } from "../../src/circle/gate.js";
import { doneGate, echoGate } from "../../src/circle/gates/index.js";

const later: Gate = {
  name: "later",
  description: "Answers after a tick.",
  parameters: { type: "object", properties: {} },
  execute: () => new Promise((resolve) => setImmediate(() => resolve("late"))),
};

function circleOf(approvals?: ApprovalPolicy) {
  return new Circle({
    gates: [doneGate(), echoGate(), later],
    wards: [{ max_turns: 3 }],
    approvals,
  });
}

function context(budget?: GateBudget, unrecorded: GateCallRecord[] = []): GateContext {
  return {
    entityId: "ent_test",
    turnId: "turn_test",
    signal: new AbortController().signal,
    depth: 0,
    entity: undefined as never,
    budget,
    onUnrecorded: (r) => unrecorded.push(r),
    approvals: [],
  };
}

function expectStamped(outcome: GateOutcome, before: number) {
  const { started_at, duration_ms } = outcome.record;
  expect(typeof started_at).toBe("string");
  expect(new Date(started_at!).toISOString()).toBe(started_at);
  expect(Date.parse(started_at!)).toBeGreaterThanOrEqual(before - 1);
  expect(typeof duration_ms).toBe("number");
  expect(duration_ms).toBeGreaterThanOrEqual(0);
  // Milliseconds to the µs: at most three decimals.
  expect(Math.round(duration_ms! * 1000) / 1000).toBe(duration_ms);
}

describe("every settled gate call is stamped with its start and duration", () => {
  it("a call answered at once, with and without a turn budget", () => {
    const circle = circleOf();
    const before = Date.now();
    for (const budget of [undefined, new GateBudget(1024 * 1024)]) {
      const out = circle.callGate("echo", { text: "hi" }, context(budget));
      expect(out).not.toBeInstanceOf(Promise); // a synchronous gate is answered synchronously
      const o = out as GateOutcome;
      expect(o.record).toMatchObject({ gate_name: "echo", result: "hi", is_error: false });
      expectStamped(o, before);
    }
  });

  it("a call answered later, with and without a turn budget", async () => {
    const circle = circleOf();
    const before = Date.now();
    for (const budget of [undefined, new GateBudget(1024 * 1024)]) {
      const out = circle.callGate("later", {}, context(budget));
      expect(out).toBeInstanceOf(Promise);
      const o = await out;
      expect(o.record).toMatchObject({ gate_name: "later", result: "late", is_error: false });
      expectStamped(o, before);
    }
  });

  it("calls refused by the turn's budget: the first recorded, the next told to onUnrecorded", () => {
    const circle = circleOf();
    const before = Date.now();
    const unrecorded: GateCallRecord[] = [];
    const budget = new GateBudget(10);
    const first = circle.callGate("echo", { text: "far too long" }, context(budget, unrecorded));
    const second = circle.callGate("echo", { text: "again" }, context(budget, unrecorded));
    for (const o of [first, second] as GateOutcome[]) {
      expect(o.record.is_error).toBe(true);
      expectStamped(o, before);
    }
    expect((first as GateOutcome).unrecorded).toBeUndefined();
    expect((second as GateOutcome).unrecorded).toBe(true);
    expect(unrecorded).toEqual([(second as GateOutcome).record]);
  });

  it("a call an approval rule denies (no one to ask) is stamped too", async () => {
    const circle = circleOf(new ApprovalPolicy([{ gate: "echo" }]));
    const before = Date.now();
    const o = await circle.callGate("echo", { text: "hi" }, context(new GateBudget(1024)));
    expect(o.record.is_error).toBe(true);
    expect(o.ok).toBe(false);
    expectStamped(o, before);
  });
});
