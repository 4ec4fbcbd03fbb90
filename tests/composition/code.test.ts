import { describe, expect, it } from "vitest";
import { behaviorGate } from "../../src/circle/gates/index.js";
import { loadCodeEngine } from "../../src/sandbox/index.js";
import type { CantripEvent } from "../../src/core/events.js";
import { IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

/** A code-speaking child: sums its `context` (and may first wait on slow_gate). */
const summer = (wait = false) =>
  new IntentLLM("summer", () => ({
    code: `${wait ? "slow_gate(); " : ""}done(context.reduce((a, b) => a + b, 0))`,
  }));

describe("composition as code (§5.3)", () => {
  it("fans out over data with call_entity_batch inside the parent's code; context is the child's variable", async () => {
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        {
          code:
            "const chunks = [[1, 2], [3, 4], [5, 6]];\n" +
            "const sums = call_entity_batch(chunks.map((c) => ({ intent: 'sum the numbers', context: c, medium: 'code' })));\n" +
            "done({ sums, total: sums.reduce((a, b) => a + b, 0) })",
        },
      ]),
      spawn: { llms: llmSource({}, { 1: summer() }) },
    });
    const result = await parent.cast("sum everything");
    expect(result.result).toEqual({ sums: [3, 7, 11], total: 21 });
    const record = result.loom.turns().find((t) => t.entity_id === result.entityId)!.gate_calls;
    expect(record.map((g) => g.gate_name)).toEqual(["call_entity_batch", "done"]);
  });

  it("runs eight code children's sandboxes at the same time", async () => {
    const slow = behaviorGate({ name: "slow_gate", behavior: { delay_ms: 150, result: "ok" } });
    const parent = () =>
      parentCantrip({
        code: true,
        gates: [slow],
        llm: scripted([
          {
            code: "done(call_entity_batch(Array.from({ length: 8 }, (_, i) => ({ intent: 'sum', context: [i, 1], medium: 'code' }))))",
          },
        ]),
        spawn: { llms: llmSource({}, { 1: summer(true) }) },
      });
    const engine = await loadCodeEngine();
    // Lanes are worker threads: the first batch starts them (bench/code measures that).
    await parent().cast("warm the lanes");
    const before = engine.stats().live;
    const started = performance.now();
    const result = await parent().cast("x");
    const elapsed = performance.now() - started;
    expect(result.result).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(elapsed).toBeLessThan(150 * 3); // in sequence: 8 × 150 ms
    expect(engine.stats()).toMatchObject({ live: before, dead: 0 }); // every child's sandbox was disposed
  });

  it("forwards the children's events to the parent's listeners", async () => {
    const events: CantripEvent[] = [];
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        { code: "done(call_entity({ intent: 'sum', context: [2, 2], medium: 'code' }))" },
      ]),
      spawn: { llms: llmSource({}, { 1: summer() }) },
    });
    const result = await parent.cast("x", { onEvent: (e) => events.push(e) });
    expect(result.result).toBe(4);
    const finals = events.filter((e) => e.type === "final");
    expect(finals).toHaveLength(2);
    expect(new Set(finals.map((e) => e.entityId)).size).toBe(2);
  });
});
