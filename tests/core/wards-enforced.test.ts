import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { behaviorGate, Cantrip, Circle, doneGate, Loom, ScriptedLLM } from "../../src/index.js";
import type { LLM } from "../../src/core/contract.js";

describe("wards are enforced by the runtime", () => {
  it("an llm that ignores the abort signal does not outrun timeout_ms", async () => {
    const stubborn: LLM = {
      name: "stubborn",
      query: async () => {
        await sleep(300);
        return {
          content: "late answer",
          toolCalls: null,
          usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
        };
      },
    };
    const c = new Cantrip({
      llm: stubborn,
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ timeout_ms: 50 }] }),
    });
    const r = await c.cast("go");
    expect(r).toMatchObject({ truncated: true, reason: "timeout_ms", turns: 1 });
    expect(c.loom.turns()[0]).toMatchObject({ truncated: true, reason: "timeout_ms" });
  });

  // An LLM written by hand may never settle its query and never look at the signal: without
  // the loop's own race, these casts would hang until the test's timeout.
  const silent = (): LLM & { asked: () => Promise<void> } => {
    let heard!: () => void;
    const asked = new Promise<void>((resolve) => (heard = resolve));
    return {
      name: "silent",
      query: () => (heard(), new Promise(() => {})),
      asked: () => asked,
    };
  };

  it("an llm that never answers and ignores the signal: timeout_ms still ends the cast", async () => {
    const c = new Cantrip({
      llm: silent(),
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ timeout_ms: 50 }] }),
    });
    const r = await c.cast("go");
    expect(r).toMatchObject({ truncated: true, reason: "timeout_ms", turns: 1 });
    expect(c.loom.turns()[0]).toMatchObject({ truncated: true, reason: "timeout_ms" });
  });

  it("an llm that never answers and ignores the signal: the caller's cancel ends the cast", async () => {
    const llm = silent();
    const c = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 3 }] }),
    });
    const controller = new AbortController();
    const cast = c.cast("go", { signal: controller.signal });
    await llm.asked();
    controller.abort("cancelled");
    const r = await cast;
    expect(r).toMatchObject({ truncated: true, reason: "cancelled", turns: 1 });
  });

  it("after a timeout the remaining gate calls of the utterance do not run (LOOP-4)", async () => {
    let started = 0;
    const slow = behaviorGate({ name: "slow", behavior: { delay_ms: 150, result: "ok" } });
    const counting = {
      ...slow,
      execute: (a: Record<string, unknown>, ctx: Parameters<typeof slow.execute>[1]) => (
        started++,
        slow.execute(a, ctx)
      ),
    };
    const llm = new ScriptedLLM({
      responses: [{ tool_calls: [{ gate: "slow" }, { gate: "slow" }, { gate: "slow" }] }],
    });
    const c = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({
        gates: [doneGate(), counting],
        wards: [{ timeout_ms: 60 }, { max_turns: 3 }],
      }),
    });
    const r = await c.cast("go");
    expect(r).toMatchObject({ truncated: true, reason: "timeout_ms" });
    expect(started).toBe(1);
  });

  it("a huge timeout_ms does not fire at once", async () => {
    const llm = new ScriptedLLM({ responses: [{ content: "fine" }] });
    const c = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ timeout_ms: 3_000_000_000 }] }),
    });
    expect(await c.cast("go")).toMatchObject({ terminated: true, result: "fine" });
  });

  it("a failed send leaves no dangling intent on a summoned entity", async () => {
    const llm = new ScriptedLLM({
      responses: [{ error: { status: 500, message: "down" } }, { content: "second" }],
    });
    const c = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
      loom: new Loom(),
    });
    const entity = c.summon();
    const failed = await entity.send("first");
    expect(failed.status).toBe("failed");
    expect(failed.status === "failed" && failed.error.message).toContain("down");
    expect(await entity.send("again")).toMatchObject({ result: "second" });
    expect(entity.history.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
