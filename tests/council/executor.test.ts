/** §11 criteria 4-7: red team every loop, early exit, short-circuit, observability gating. */
import { describe, expect, it } from "vitest";
import { CouncilCalls } from "../../src/council/calls.js";
import { execute, type ExecutorOptions } from "../../src/council/executor.js";
import { Crucible } from "../../src/spell/crucible.js";
import { ScriptedLLM } from "../../src/llm/providers/scripted.js";
import { LoopRecord, type LoopRecordFactory } from "../../src/council/loop-record.js";
import { toTriageOutput } from "../../src/council/triage-output.js";
import type { LLM, LLMResponse } from "../../src/core/contract.js";
import { asked, scripted, triageJson } from "./helpers.js";

const n = (k: number, p: string) => Array.from({ length: k }, (_, i) => `${p}${i + 1}`);

function engine(over: Record<string, unknown>, judgeReplies: string[], seats = 2, critics = 1) {
  const loops = Number(over["loop_count"] ?? 2);
  const seatLLM = scripted("seats", n(seats * loops, "S"));
  const redTeam = scripted("red", n(loops * critics, "R"));
  const judge = scripted("judge", judgeReplies);
  const synth = scripted("synth", ["FINAL"]);
  const crucible = new Crucible({
    triage: triageJson(over),
    llms: { default: seatLLM, redTeam, judge, synthesizer: synth },
    observability: true,
  });
  return { crucible, seatLLM, redTeam, judge, synth };
}

describe("main loop control", () => {
  it("exits early at loop 2 — never at loop 1 — when the judge finds no change", async () => {
    const c = engine({ loop_count: 4, allow_early_exit: true }, ["NO"]);
    const r = await c.crucible.run("q");
    expect(r.loopsExecuted).toBe(2);
    expect(r.earlyExit).toBe(true);
    expect(c.judge.queries).toBe(1); // loop 1 has no prior: no judge call
    expect(r.reasoningTrace?.map((l) => l.deltaDetected)).toEqual([true, false]);
    expect(c.redTeam.queries).toBe(2);
  });

  it("goes on while the judge sees change, and stops at the first NO after loop 2", async () => {
    const c = engine({ loop_count: 5, allow_early_exit: true }, ["YES", "no."]);
    const r = await c.crucible.run("q");
    expect([r.loopsExecuted, r.earlyExit]).toEqual([3, true]);
    expect(r.reasoningTrace?.map((l) => l.deltaDetected)).toEqual([true, true, false]);
  });

  it("runs every loop when early exit is not allowed, without asking the judge", async () => {
    const c = engine({ loop_count: 3, allow_early_exit: false }, []);
    const r = await c.crucible.run("q");
    expect([r.loopsExecuted, r.earlyExit]).toEqual([3, false]);
    expect(c.judge.queries).toBe(0);
  });

  it("a NO in the last loop is not an early exit", async () => {
    const c = engine({ loop_count: 2, allow_early_exit: true }, ["NO"]);
    const r = await c.crucible.run("q");
    expect([r.loopsExecuted, r.earlyExit]).toEqual([2, false]);
  });

  it("the red team critiques in every loop of every grammar", async () => {
    for (const grammar of ["parallel", "sequential", "debate"]) {
      const seats = grammar === "debate" ? 4 : 2; // debate: positions + defenses
      const critics = grammar === "sequential" ? 2 : 1; // sequential: one critique per draft
      const c = engine({ loop_count: 3, loop_grammar: grammar }, [], seats, critics);
      const r = await c.crucible.run("q");
      const critiques = r.reasoningTrace!.map((l) => l.redTeamCritique);
      expect(critiques, grammar).toHaveLength(3);
      expect(critiques, grammar).toEqual([1, 2, 3].map((l) => `R${l * critics}`));
      expect(c.redTeam.unused(), grammar).toBe(0);
      const systems = asked(c.redTeam).map((m) => m[0]?.content ?? "");
      expect(systems.every((s) => s.startsWith("You are the Red Team member"))).toBe(true);
    }
  });
});

describe("short-circuit", () => {
  it("SIMPLE + allowed: one call with [system: synthesis instruction] [user: query], 0 loops", async () => {
    const llm = scripted("default", ["Paris."]);
    const crucible = new Crucible({
      triage: triageJson({
        complexity: "simple",
        short_circuit_allowed: true,
        reconstructed_query: "What is the capital of France?",
        synthesis_instruction: "One word.",
      }),
      llms: { default: llm },
      observability: true,
    });
    const r = await crucible.run("capital of france");
    expect(r).toEqual({
      finalResponse: "Paris.",
      loopsExecuted: 0,
      earlyExit: true,
      reasoningTrace: null,
    });
    expect(asked(llm)).toEqual([
      [
        { role: "system", content: "One word." },
        { role: "user", content: "What is the capital of France?" },
      ],
    ]);
  });

  it("SIMPLE without permission deliberates", async () => {
    const c = engine({ complexity: "simple", short_circuit_allowed: false }, []);
    const r = await c.crucible.run("q");
    expect(r.loopsExecuted).toBe(2);
  });
});

describe("observability (§5.3: not built, not just not returned)", () => {
  const triage = toTriageOutput(triageJson({ loop_count: 3 }));
  const options = (observability: boolean, newLoopRecord: LoopRecordFactory): ExecutorOptions => ({
    defaultLLM: scripted("seats", n(6, "S")),
    redTeamLLM: scripted("red", n(3, "R")),
    synthesizerLLM: scripted("synth", ["F"]),
    seatLLMs: [],
    delta: { detect: () => Promise.resolve(true) },
    observability,
    newLoopRecord,
  });
  const counting = () => {
    const made: LoopRecord[] = [];
    const factory: LoopRecordFactory = (...args) => {
      const r = new LoopRecord(...args);
      made.push(r);
      return r;
    };
    return { made, factory };
  };

  it("off: no LoopRecord is constructed and the trace is null", async () => {
    const { made, factory } = counting();
    const r = await execute(triage, "q", new CouncilCalls(undefined, "c"), options(false, factory));
    expect(made).toHaveLength(0);
    expect(r.reasoningTrace).toBeNull();
    expect(r.loopsExecuted).toBe(3);
  });

  it("on: one LoopRecord per loop, returned as the trace", async () => {
    const { made, factory } = counting();
    const r = await execute(triage, "q", new CouncilCalls(undefined, "c"), options(true, factory));
    expect(made).toHaveLength(3);
    expect(r.reasoningTrace).toEqual(made);
    expect(made.map((m) => m.loopNumber)).toEqual([1, 2, 3]);
  });
});

describe("seats", () => {
  it("the seats of one phase are queried concurrently", async () => {
    let started = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const waiting: LLM = {
      name: "waiting",
      async query(): Promise<LLMResponse> {
        started++;
        if (started === 4) release(); // all four seats asked before any has answered
        await gate;
        return {
          content: `S${started}`,
          toolCalls: null,
          usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
        };
      },
    };
    const council = [1, 2, 3, 4].map(() => ({ role: "creative", system_prompt: "Think." }));
    const crucible = new Crucible({
      triage: triageJson({
        council: [...council, { role: "red_team", system_prompt: "x" }],
        loop_count: 2,
      }),
      llms: {
        default: waiting,
        redTeam: scripted("r", ["R1", "R2"]),
        synthesizer: scripted("s", ["F"]),
      },
    });
    // Would hang (and time out) if the seats were asked one after another.
    const r = await crucible.run("q");
    expect(r.finalResponse).toBe("F");
  });

  it("responses are keyed by seat: two seats of one role stay apart", async () => {
    const council = [
      { role: "creative", system_prompt: "A" },
      { role: "creative", system_prompt: "B" },
      { role: "pragmatist", system_prompt: "C" },
      { role: "red_team", system_prompt: "x" },
    ];
    const crucible = new Crucible({
      triage: triageJson({ council }),
      llms: {
        default: scripted("s", n(6, "S")),
        redTeam: scripted("r", ["R1", "R2"]),
        synthesizer: scripted("f", ["F"]),
      },
      observability: true,
    });
    const r = await crucible.run("q");
    expect(r.reasoningTrace?.[0]?.councilResponses).toEqual({
      "creative#1": "S1",
      "creative#2": "S2",
      pragmatist: "S3",
    });
  });

  it("a seat's model hint naming an LLM is served by it; the red team's hint too", async () => {
    const expert = scripted("expert", ["E1", "E2"]);
    const critic = scripted("critic", ["R1", "R2"]);
    const council = [
      { role: "domain_expert", system_prompt: "A", model_hint: "expert" },
      { role: "pragmatist", system_prompt: "B", model_hint: null },
      { role: "red_team", system_prompt: "x", model_hint: "critic" },
    ];
    const crucible = new Crucible({
      triage: triageJson({ council }),
      llms: { default: scripted("d", ["P1", "P2", "F"]), models: { expert, critic } },
    });
    expect((await crucible.run("q")).finalResponse).toBe("F");
    expect([expert.unused(), critic.unused()]).toEqual([0, 0]);
  });
});

describe("a failed run", () => {
  it("keeps the loops that completed before a seat failed, with the error", async () => {
    // Loop 1: two seats + red team; loop 2: the first seat answers, the second fails.
    const seats = new ScriptedLLM({
      name: "seats",
      responses: [
        { content: "S1" },
        { content: "S2" },
        { content: "S3" },
        { error: { status: 400, message: "refused" } },
      ],
    });
    const crucible = new Crucible({
      triage: triageJson({ loop_count: 3 }),
      llms: {
        default: seats,
        redTeam: scripted("red", ["R1", "R2"]),
        synthesizer: scripted("s", ["F"]),
      },
      observability: false,
    });
    const err = await crucible.run("q").catch((e: unknown) => e);
    expect((err as Error).message).toContain("seat, loop 2, seat pragmatist");
    expect(Crucible.completedLoops(err)).toEqual([
      {
        loopNumber: 1,
        councilResponses: { domain_expert: "S1", pragmatist: "S2" },
        redTeamCritique: "R1",
      },
    ]);
  });
});
