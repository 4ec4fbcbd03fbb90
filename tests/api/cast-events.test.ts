// A cast's events as an async iterator (issue 45): `for await (const e of cantrip.events(intent))`
// gives what `onEvent` is told, in order, then ends; `result` is what `cast` returns; leaving the
// loop early cancels the cast.
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  Cantrip,
  Circle,
  MemoryStore,
  ScriptedLLM,
  doneGate,
  echoGate,
  gate,
  type CantripEvent,
  type CastEvents,
  type ScriptedResponse,
} from "../../src/index.js";

const echo = (text: string): ScriptedResponse => ({
  tool_calls: [{ gate: "echo", args: { text } }],
});
const done = (answer: string): ScriptedResponse => ({
  tool_calls: [{ gate: "done", args: { answer } }],
});

const build = (responses: ScriptedResponse[], maxTurns = 10) =>
  new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: { systemPrompt: "Echo, then answer." },
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: maxTurns }] }),
  });

/** A gate that answers only once the cast is cancelled: a cast that reaches it waits for the reader. */
const waitGate = gate({
  name: "wait",
  description: "Wait until cancelled.",
  parameters: { type: "object", properties: {} },
  execute: (_args, ctx) =>
    new Promise((resolve) => {
      if (ctx.signal.aborted) resolve("stopped");
      ctx.signal.addEventListener("abort", () => resolve("stopped"));
    }),
});
const wait: ScriptedResponse = { tool_calls: [{ gate: "wait", args: {} }] };

const waiting = (responses: ScriptedResponse[]) =>
  new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: { systemPrompt: "Echo, wait, then answer." },
    circle: new Circle({
      gates: [doneGate(), echoGate(), waitGate],
      wards: [{ max_turns: 10 }],
    }),
  });

/** An event without what differs between two casts (ids, times). */
const shape = (e: CantripEvent) =>
  e.type === "step_complete"
    ? { type: e.type, sequence: e.sequence, gates: e.gates, outcome: e.outcome }
    : e.type === "tool_result"
      ? { type: e.type, gate: e.record.gate_name, result: e.record.result }
      : e.type === "final"
        ? { type: e.type, result: e.result, terminated: e.terminated }
        : { type: e.type };

describe("cantrip.events(intent)", () => {
  it("yields the events onEvent is told, in order, ends after final; result is cast's", async () => {
    const script = () => [echo("hi"), done("42")];
    const told: CantripEvent[] = [];
    const cast = await build(script()).cast("go", { onEvent: (e) => told.push(e) });

    const run = build(script()).events("go");
    expectTypeOf(run).toMatchTypeOf<AsyncIterable<CantripEvent>>();
    const read: CantripEvent[] = [];
    for await (const event of run) read.push(event);

    expect(read.map(shape)).toEqual(told.map(shape));
    expect(read.at(-1)).toMatchObject({ type: "final", result: "42", terminated: true });
    expect(read.filter((e) => e.type === "step_complete")).toHaveLength(2);
    const result = await run.result;
    expect(result).toMatchObject({ status: "terminated", result: "42", turns: cast.turns });
    expect(result.nextCantrip).toBeInstanceOf(Cantrip);
    // Every event is of the cast's own entity.
    expect(new Set(read.map((e) => e.entityId))).toEqual(new Set([result.entityId]));
  });

  it("tells an onEvent given in the options too", async () => {
    const told: string[] = [];
    const run = build([done("x")]).events("go", { onEvent: (e) => told.push(e.type) });
    const read: string[] = [];
    for await (const event of run) read.push(event.type);
    expect(told).toEqual(read);
    expect(read).toContain("final");
  });

  it("leaving the loop early cancels the cast: truncated, reason cancelled, no more turns", async () => {
    const cantrip = waiting([echo("1"), wait, echo("3"), done("never")]);
    const run = cantrip.events("go");
    for await (const event of run) {
      if (event.type === "tool_call" && event.gate === "wait") break;
    }
    const result = await run.result;
    expect(result.status).toBe("truncated");
    expect(result.reason).toBe("cancelled");
    // The turn that waited was the last: the reply after it was never asked for.
    expect((cantrip.llm as ScriptedLLM).queries).toBe(2);
    expect(result.turns).toBeLessThanOrEqual(2);
    // The iterator is finished.
    expect(await run.next()).toEqual({ value: undefined, done: true });
  });

  it("a cast that rejects rejects the loop and result alike", async () => {
    const cantrip = new Cantrip({
      llm: new ScriptedLLM({ responses: [done("x")] }),
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 1 }] }),
      loom: new MemoryStore() as never,
    });
    const run: CastEvents<unknown> = cantrip.events("go", { resumeEntity: "entity_missing" });
    const loop = (async () => {
      for await (const _event of run) void _event;
    })();
    const [looped, resulted] = await Promise.allSettled([loop, run.result]);
    expect(looped.status).toBe("rejected");
    expect(resulted.status).toBe("rejected");
    expect((looped as PromiseRejectedResult).reason).toBe(
      (resulted as PromiseRejectedResult).reason,
    );
  });

  it("an abort signal in the options cancels it as cast's does", async () => {
    const controller = new AbortController();
    const run = waiting([echo("1"), wait, done("never")]).events("go", {
      signal: controller.signal,
    });
    const types: string[] = [];
    for await (const event of run) {
      types.push(event.type);
      if (event.type === "tool_call" && event.gate === "wait") controller.abort("stop");
    }
    const result = await run.result;
    expect(result).toMatchObject({ status: "truncated", reason: "stop" });
    expect(types.at(-1)).toBe("final");
  });

  it("entity.events(intent) reads one send of a summoned entity; the entity goes on after", async () => {
    const cantrip = waiting([echo("1"), wait, done("first"), done("second")]);
    const entity = cantrip.summon();
    const first = entity.events("one");
    for await (const event of first) {
      if (event.type === "tool_call" && event.gate === "wait") break;
    }
    expect(await first.result).toMatchObject({ status: "truncated", reason: "cancelled" });
    // The entity stays: its next send is read to its end, and only its own events are told.
    const read: CantripEvent[] = [];
    const second = entity.events("two");
    for await (const event of second) read.push(event);
    expect(read.at(-1)).toMatchObject({ type: "final", terminated: true });
    expect((await second.result).result).toBe("first");
    expect(read.filter((e) => e.type === "final")).toHaveLength(1);
    entity.dispose();
  });
});
