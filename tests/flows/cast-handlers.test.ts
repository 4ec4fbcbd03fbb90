import { describe, expect, it } from "vitest";
import { Cantrip } from "../../src/core/cantrip.js";
import { Circle } from "../../src/circle/circle.js";
import { doneGate, echoGate } from "../../src/circle/gates/index.js";
import { ScriptedLLM, type ScriptedResponse } from "../../src/llm/providers/scripted.js";
import { castHook, castReceiver, castSender, eventOf } from "../../src/flows/cast-handlers.js";
import { Loom } from "../../src/loom/core/index.js";
import { Flow, FlowRunner } from "../../src/flows/index.js";

const cantrip = (responses: ScriptedResponse[], maxTurns = 3) =>
  new Cantrip({
    llm: new ScriptedLLM({ responses, recordInputs: true }),
    identity: { systemPrompt: "decide" },
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: maxTurns }] }),
    loom: new Loom(),
  });
const done = (answer: unknown): ScriptedResponse => ({
  tool_calls: [{ gate: "done", args: { answer } }],
});

describe("cast handlers: a cantrip decides", () => {
  it.each([
    ["move", { action: "MOVE", trigger: null }],
    ["stay ok", { action: "STAY", trigger: "ok" }],
    ["TEST: checked twice", { action: "TEST", trigger: "checked twice" }],
    [
      { action: "move", trigger: "x" },
      { action: "move", trigger: "x" },
    ],
    ["jump", { action: "jump" }],
  ])("eventOf(%j)", (result, want) => {
    expect(eventOf(result)).toEqual(want);
  });

  it("a receiver's cast sees the input as JSON; its result is the event; the cast records into the loom", async () => {
    const c = cantrip([done("move greeted")]);
    const flow = new Flow({ tape: { shape: "index-single", initial: { bob: "idle" } } }).receive(
      "idle --> talking",
      castReceiver(c),
    );
    const { trace } = await new FlowRunner(flow).cycle({ text: "hi" });
    expect(trace.receivers).toEqual([
      {
        route: "idle --[]--> talking",
        key: "bob",
        state: "idle",
        action: "MOVE",
        trigger: "greeted",
      },
    ]);
    const llm = c.llm as ScriptedLLM;
    const intent = llm.invocations[0]!.messages.find((m) => m.role === "user")!.content;
    expect(JSON.parse(String(intent))).toEqual({
      payload: { text: "hi" },
      key: "bob",
      state: "idle",
      route: "idle --[]--> talking",
    });
    expect(c.loom.turns().length).toBe(1);
  });

  it("a sender's result is the payload (JSON text parsed); a hook's null drops", async () => {
    const flow = new Flow()
      .hook("receive", castHook(cantrip([done({ text: "clean" }), done(null)])))
      .receive("--> a", () => ({ action: "STAY", trigger: null }))
      .send("a", castSender(cantrip([done('{"reply":"hello"}')])));
    const runner = new FlowRunner(flow);
    expect((await runner.cycle("raw")).emitted.map((e) => e.payload)).toEqual([{ reply: "hello" }]);
    expect((await runner.cycle("raw")).trace.dropped?.by).toBe("receive_hook");
  });

  it("a cast that a ward truncates fails the handler", async () => {
    const c = cantrip([{ tool_calls: [{ gate: "echo", args: { text: "thinking" } }] }], 1);
    const flow = new Flow({ tape: { initial: ["a"] } }).receive("a", castReceiver(c));
    const { trace } = await new FlowRunner(flow).cycle("m");
    expect(trace.receivers[0]!.error).toMatch(/stopped: max_turns/);
  });
});
