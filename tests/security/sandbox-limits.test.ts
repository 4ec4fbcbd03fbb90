import { describe, expect, it } from "vitest";
import { behaviorGate } from "../../src/circle/gates/index.js";
import { loadCodeEngine } from "../../src/sandbox/index.js";
import { codeCantrip } from "../circle/code-helpers.js";
import type { CastResult } from "../../src/core/result.js";
import type { Loom } from "../../src/loom/core/index.js";
import { IntentLLM, llmSource, parentCantrip, scripted } from "../composition/helpers.js";

const MiB = 1024 * 1024;
/**
 * The stated tolerance of max_memory_mb (README, security; lane-memory.ts): what the code holds
 * stays under limit + 4 MiB + 10% of the limit (the 1 MiB reserve of the initial heap, the
 * grace QuickJS builds its error in, the heap's growth steps); the lane's whole heap under its
 * initial 16 MiB + 2 MiB + the limit + the grace (max(2 MiB, 6% of the heap)).
 */
const tolerance = (limit: number) => 4 * MiB + limit * 0.1;
const laneBound = (limit: number) => {
  const heap = 18 * MiB + limit;
  return heap + Math.max(2 * MiB, heap * 0.07);
};

/** Allocation patterns: each keeps what it allocates and counts the bytes it holds. */
const PATTERNS: Record<string, string> = {
  "1 MiB arrays": "h.push(new Array(131072).fill(1.5)); held += 131072 * 8",
  "64 KiB arrays": "h.push(new Array(8192).fill(1.5)); held += 8192 * 8",
  "1 MiB strings": "h.push('x'.repeat(1 << 20) + h.length); held += 1 << 20",
  "small objects": "h.push({ n: h.length, s: 'k' + h.length }); held += 48",
  "1 MiB typed arrays": "h.push(new Uint8Array(1 << 20)); held += 1 << 20",
  "64 KiB typed arrays": "h.push(new Float64Array(8192)); held += 1 << 16",
};

const bomb = (step: string) =>
  `var h = [], held = 0; try { while (true) { ${step} } } catch (e) { h = null; String(e) + ' after ' + held }`;

function observation(result: CastResult<Loom>, turn: number): string {
  return result.loom.turns()[turn]!.observation;
}

/** The heap (WebAssembly memory) of every lane alive now. */
async function heaps(): Promise<Map<object, number>> {
  return new Map((await loadCodeEngine()).laneList.map((l) => [l, l.heapBytes]));
}

/** The heaps of the lanes that are new or grew since `before`. */
async function grown(before: Map<object, number>): Promise<number[]> {
  return [...(await heaps())].filter(([l, h]) => h > (before.get(l) ?? 0)).map(([, h]) => h);
}

describe("max_memory_mb holds for every allocation pattern", () => {
  for (const mb of [4, 16, 64]) {
    it.each(Object.keys(PATTERNS))(`${mb} MiB: %s`, async (pattern) => {
      const before = await heaps();
      const entity = codeCantrip([bomb(PATTERNS[pattern]!), "done('alive')"], {
        wards: [{ max_turns: 3 }, { max_memory_mb: mb }, { max_eval_ms: 20_000 }],
      }).cantrip.summon();
      try {
        const first = await entity.send("allocate");
        const seen = observation(first, 0);
        expect(seen).toMatch(/out of memory/);
        const held = Number(/after (\d+)/.exec(seen)?.[1]);
        // Held bytes never pass the limit plus the tolerance; nor is the ward far too tight.
        expect(held).toBeLessThanOrEqual(mb * MiB + tolerance(mb * MiB));
        if (pattern !== "small objects") expect(held).toBeGreaterThanOrEqual(mb * MiB * 0.5);
        // The host's side: the sandbox's lane never holds more than its budget.
        for (const heap of await grown(before))
          expect(heap).toBeLessThanOrEqual(laneBound(mb * MiB));
      } finally {
        entity.dispose();
      }
    });
  }
});

describe("max_memory_mb holds after a bigger sandbox left its lane", () => {
  it("the space a 64 MiB sandbox grew and freed is not a 4 MiB newcomer's", async () => {
    // The big one allocates 40 MiB and finishes normally (no out-of-memory: its lane is kept).
    const big = codeCantrip(
      [
        "var h = []; for (var i = 0; i < 640; i++) h.push(new Uint8Array(1 << 16)); h = null; done(1)",
      ],
      { wards: [{ max_turns: 2 }, { max_memory_mb: 64 }] },
    );
    await big.cantrip.cast("grow");
    for (let i = 0; i < 3; i++) {
      const small = codeCantrip([bomb(PATTERNS["64 KiB typed arrays"]!), "done(1)"], {
        wards: [{ max_turns: 3 }, { max_memory_mb: 4 }],
      });
      const seen = observation(await small.cantrip.cast("fill"), 0);
      const held = Number(/after (\d+)/.exec(seen)?.[1]);
      expect(held).toBeLessThanOrEqual(4 * MiB + tolerance(4 * MiB));
    }
  });
});

describe("max_memory_mb holds for a batch of children together", () => {
  it("4 children at 16 MiB, each bombing at once, hold at most 4 × their bound", async () => {
    const wait = behaviorGate({ name: "slow_gate", behavior: { delay_ms: 150, result: "ok" } });
    const child = new IntentLLM("bomber", () => ({
      // Allocate to the limit, keep it while the siblings do the same, then report.
      code:
        "var h = [], held = 0; try { while (true) { h.push(new Uint8Array(1 << 16)); held += 1 << 16 } } catch (e) { }" +
        " slow_gate(); done(held)",
    }));
    const parent = parentCantrip({
      code: true,
      gates: [wait],
      wards: [{ max_turns: 3 }, { max_memory_mb: 16 }],
      llm: scripted([
        {
          code: "done(call_entity_batch(Array.from({ length: 4 }, (_, i) => ({ intent: 'fill ' + i, medium: 'code' }))))",
        },
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const engine = await loadCodeEngine();
    const before = await heaps();
    let peak = 0;
    const sample = setInterval(() => {
      let total = 0;
      for (const lane of engine.laneList)
        total += Math.max(0, lane.heapBytes - (before.get(lane) ?? 0));
      peak = Math.max(peak, total);
    }, 5);
    const result = await parent.cast("fill memory");
    clearInterval(sample);
    const held = result.result as number[];
    expect(held).toHaveLength(4);
    for (const h of held) expect(h).toBeLessThanOrEqual(16 * MiB + tolerance(16 * MiB));
    // What the batch added to the host's heaps while all four held their memory.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(4 * laneBound(16 * MiB));
  });
});

describe("max_eval_ms holds for code that catches its own errors", () => {
  // Each of these ran 4–9× past its budget: QuickJS asked whether to stop only every 10,000
  // ticks, and here a tick is costly. The bench (bench/code.bench.mjs) checks the 20% target;
  // this test catches a return of the multi-second overruns — in CPU time, which a busy machine
  // does not stretch (wall time did: 1.7 s against a 0.9 s bound at a load of 20 — issue 21).
  const BUDGET = 600;
  const RUNAWAYS: Record<string, string> = {
    "a memory bomb that catches out-of-memory":
      "var h = []; for (var k = 0; k < 1e9; k++) { try { h.push(new Array(131072).fill(1)) } catch (e) { h = [] } }",
    "small objects, caught":
      "var h = []; for (;;) { try { h.push({ a: h.length }) } catch (e) { h = [] } }",
    "string doubling, caught": "var s = 'x'; for (;;) { try { s = s + s } catch (e) { s = 'x' } }",
    "recursion that catches stack overflow":
      "function f(n) { try { return f(n + 1) } catch (e) { return f(n + 1) } } f(0)",
    "recursion that catches and recurses again":
      "function f(n) { try { f(n + 1) } catch (e) {} f(n + 1) } f(0)",
  };
  it.each(Object.keys(RUNAWAYS))("%s", async (name) => {
    const { cantrip } = codeCantrip([RUNAWAYS[name]!, "done('alive')"], {
      wards: [{ max_turns: 3 }, { max_memory_mb: 16 }, { max_eval_ms: BUDGET }],
    });
    const before = process.cpuUsage(); // every thread of this process: the worker's included
    const result = await cantrip.cast("run away");
    const cpu = process.cpuUsage(before);
    const turn = result.loom.turns()[0]!;
    expect(turn.observation).toMatch(/TimeoutError: the run exceeded max_eval_ms/);
    // The code is stopped at its budget by its own clock, or — recursion that catches its own
    // stack overflows is not interrupted inside the sandbox — its worker is terminated at
    // max_eval_ms + max(100 ms, 15%) of compute. Either way the CPU it used stays near the
    // budget (2× leaves room for the cast around it and for the process's other threads).
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(BUDGET * 2);
    expect(result.result).toBe("alive");
  });
});

describe("a run that cannot be interrupted is ended with its worker", () => {
  // Printing a 170,000-digit BigInt is one native operation (~1 s here) with no interrupt point
  // inside. (3n ** 1000000n was one too, until a quiet machine reached QuickJS's BigInt size
  // limit before the budget: a RangeError instead of the timeout.)
  it("the observation says the sandbox was replaced; the next turn has a fresh one, state injected again", async () => {
    const { cantrip } = codeCantrip(
      ["var kept = 1", "var big = (7n ** 200000n).toString(); 1", "done([typeof kept, seed])"],
      // 150 ms cuts the printing (~1 s of compute on a quiet machine) and leaves the fresh
      // sandbox's `done` room on a loaded one (at 20 ms, a load of 24 cut that turn too).
      { wards: [{ max_turns: 4 }, { max_eval_ms: 150 }], state: { seed: 7 } },
    );
    const result = await cantrip.cast("power");
    const turn = result.loom.turns()[1]!;
    expect(turn.observation).toMatch(/TimeoutError: the run exceeded max_eval_ms \(150 ms/);
    expect(turn.observation).toMatch(/its sandbox was replaced/);
    expect(turn.is_error).toBe(true);
    expect(result.result).toEqual(["undefined", 7]);
  });
});

describe("JSON.stringify of a deep value inside the sandbox", () => {
  const nest = (depth: number) =>
    `var v = []; for (var i = 0; i < ${depth}; i++) v = [v]; var kept = 'yes'; `;
  it("5,000 levels: stringified", async () => {
    const { cantrip } = codeCantrip([nest(5000) + "JSON.stringify(v).length", "done(kept)"]);
    const result = await cantrip.cast("nest");
    expect(result.loom.turns()[0]!.observation).toBe("result: 10002");
    expect(result.result).toBe("yes");
  });
  it("100,000 levels: QuickJS's stack error, which the code may catch; the sandbox goes on", async () => {
    const { cantrip } = codeCantrip(
      [
        nest(100_000) + "JSON.stringify(v).length",
        "try { JSON.stringify(v) } catch (e) { console.log('caught', e.message) } 1",
        "done(kept)",
      ],
      { wards: [{ max_turns: 10 }, { max_eval_ms: 300_000 }] },
    );
    const result = await cantrip.cast("nest");
    const turns = result.loom.turns();
    expect(turns[0]!.observation).toMatch(/^error: InternalError: stack overflow/);
    expect(turns[1]!.observation).toMatch(/caught stack overflow/);
    expect(result.result).toBe("yes");
    expect((await loadCodeEngine()).stats().dead).toBe(0);
    // ~5 s of CPU in all: at a load of 11 on 2 cores it took 12 s, at 20 past 20 s (issue 21); at
    // 24 one turn's stringify passed the default 10 s max_eval_ms; at 30 the whole cast passed
    // 120 s. So a turn may take 5 minutes and the cast 15: bounds for a hang, not a speed check.
  }, 900_000);
  it.each([
    [
      "JSON.parse",
      "JSON.parse('['.repeat(100000) + ']'.repeat(100000))",
      /SyntaxError: stack overflow/,
    ],
    ["String of an array", nest(100_000) + "String(v).length", /InternalError: stack overflow/],
  ])("%s of 100,000 levels: a stack error, the sandbox goes on", async (_name, code, seen) => {
    const { cantrip } = codeCantrip(["var kept = 'yes'; " + code, "done(kept)"]);
    const result = await cantrip.cast("nest");
    expect(result.loom.turns()[0]!.observation).toMatch(seen);
    expect(result.result).toBe("yes");
  });
});

describe("deeply nested values are an error observation, never a crash", () => {
  const nest = (v: string) => `var v = []; for (var i = 0; i < 5000; i++) v = [v]; ${v}`;
  const CASES: [string, string, RegExp][] = [
    ["as the last value", nest("v"), /^result: \[a value nested deeper than 1000 levels\]/],
    [
      "as a thrown value",
      nest("throw v"),
      /^error: Thrown: \[a value nested deeper than 1000 levels\]/,
    ],
    ["as a promise's value", nest("Promise.resolve(v)"), /^result: \[a value nested deeper/],
    [
      "as a rejected promise",
      nest("Promise.reject({ v })"),
      /^error: Thrown: \[a value nested deeper/,
    ],
    [
      "as a gate argument",
      nest("echo({ v })"),
      /^error: Error: echo: arguments nested deeper than 1000 levels/,
    ],
    ["in console.log", nest("console.log(v); 1"), /\[a value nested deeper than 1000 levels\]/],
  ];
  it.each(CASES)("%s", async (_name, code, seen) => {
    const { cantrip } = codeCantrip([code, "done(typeof v)"], { wards: [{ max_turns: 3 }] });
    const result = await cantrip.cast("nest");
    expect(result.loom.turns()[0]!.observation).toMatch(seen);
    // The turn was recorded and the same sandbox goes on, its variables intact.
    expect(result.result).toBe("object");
    expect((await loadCodeEngine()).stats().dead).toBe(0);
  });
});
