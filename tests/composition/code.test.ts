import { describe, expect, it } from "vitest";
import type { Gate } from "../../src/circle/gate.js";
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
    // A barrier, not a clock: each child's slow_gate waits until all eight are inside it at
    // once. Children run one after another would leave the first alone there until the
    // barrier's long timeout, and the most seen inside would be 1.
    let inside = 0;
    let most = 0;
    let open!: () => void;
    const allInside = new Promise<void>((resolve) => (open = resolve));
    const barrier = {
      name: "slow_gate",
      description: "waits until eight callers are inside",
      parameters: { type: "object", properties: {} },
      async execute() {
        inside += 1;
        most = Math.max(most, inside);
        if (inside === 8) open();
        await Promise.race([allInside, new Promise((r) => setTimeout(r, 20_000))]);
        inside -= 1;
        return "ok";
      },
    } as Gate;
    const parent = () =>
      parentCantrip({
        code: true,
        gates: [barrier],
        llm: scripted([
          {
            code: "done(call_entity_batch(Array.from({ length: 8 }, (_, i) => ({ intent: 'sum', context: [i, 1], medium: 'code' }))))",
          },
        ]),
        spawn: { llms: llmSource({}, { 1: summer(true) }) },
      });
    const engine = await loadCodeEngine();
    const before = engine.stats().live;
    const result = await parent().cast("x");
    expect(result.result).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(most).toBe(8); // all eight children's code was running at the same time
    expect(engine.stats()).toMatchObject({ live: before, dead: 0 }); // every child's sandbox was disposed
  }, 120_000);

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
