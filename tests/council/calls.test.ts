/** Every council call: progress events per call, an empty reply asked again once, errors that say where. */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import type { LLM, LLMResponse } from "../../src/core/contract.js";
import { CouncilCalls } from "../../src/council/calls.js";
import type { CouncilEvent } from "../../src/council/events.js";
import { ModelError, SystemError } from "../../src/core/errors.js";
import { ScriptedLLM } from "../../src/llm/providers/scripted.js";
import { scripted } from "./helpers.js";

const site = { phase: "seat" as const, loop: 2, seat: "pragmatist", step: "position" };

function recorder() {
  const events: CouncilEvent[] = [];
  return { events, calls: new CouncilCalls(undefined, "c", (e) => events.push(e)) };
}

describe("council calls", () => {
  it("eleven queries at once add one listener to the run's signal (no MaxListenersExceededWarning)", async () => {
    const warnings: Error[] = [];
    const warn = (w: Error) => warnings.push(w);
    process.on("warning", warn);
    try {
      const run = new AbortController();
      let started = 0;
      let allStarted!: () => void;
      const all = new Promise<void>((r) => (allStarted = r));
      // Like a provider's client: each query listens on the signal it is given, until aborted.
      const llm: LLM = {
        name: "waits",
        query: (_m, options) =>
          new Promise<LLMResponse>((_resolve, reject) => {
            options?.signal?.addEventListener("abort", () => reject(new Error("aborted")));
            if (++started === 11) allStarted();
          }),
      };
      const calls = new CouncilCalls(undefined, "c", undefined, run.signal);
      const asked = calls.askAll(Array.from({ length: 11 }, () => ({ llm, messages: [], site })));
      await all;
      expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
      run.abort();
      await expect(asked).rejects.toMatchObject({ code: "council_interrupted" });
      await new Promise((r) => setImmediate(r)); // a warning is emitted on the next tick
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", warn);
    }
  });

  it("say when each call starts and answers, with its timing", async () => {
    const { events, calls } = recorder();
    expect(await calls.ask({ llm: scripted("m", ["hello"]), messages: [], site })).toBe("hello");
    expect(events.map((e) => e.type)).toEqual(["call_started", "call_answered"]);
    expect(events[0]).toMatchObject({ site, llm: "m" });
    const answered = events[1] as Extract<CouncilEvent, { type: "call_answered" }>;
    expect(answered.ms).toBeGreaterThanOrEqual(0);
  });

  it("ask an empty reply again once, and say so", async () => {
    const { events, calls } = recorder();
    const llm = scripted("m", ["  ", "second"]);
    expect(await calls.ask({ llm, messages: [], site })).toBe("second");
    expect(llm.queries).toBe(2);
    expect(events.map((e) => e.type)).toEqual(["call_started", "call_retry", "call_answered"]);
    expect(calls.calls).toBe(1);
  });

  it("fail on a second empty reply, naming the phase, loop and seat", async () => {
    const { events, calls } = recorder();
    const err = await calls
      .ask({ llm: scripted("m", ["", ""]), messages: [], site })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).code).toBe("council_empty_reply");
    expect((err as Error).message).toContain("seat, loop 2, seat pragmatist, position");
    expect(events.at(-1)).toMatchObject({ type: "call_failed", site });
  });

  it("a provider's error says which seat and phase failed, and keeps its class and code", async () => {
    const { events, calls } = recorder();
    const llm = new ScriptedLLM({
      name: "flaky",
      responses: [{ error: { status: 502, message: "upstream went away" } }],
    });
    const err = await calls.ask({ llm, messages: [], site }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect((err as SystemError).code).toBe("provider_error");
    expect((err as Error).message).toBe(
      "seat, loop 2, seat pragmatist, position (flaky): upstream went away",
    );
    expect(events.map((e) => e.type)).toEqual(["call_started", "call_failed"]);
  });
});
