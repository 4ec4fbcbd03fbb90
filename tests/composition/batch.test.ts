import { describe, expect, it } from "vitest";
import { delay, IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

const batch = (intents: unknown[]) => ({
  tool_calls: [{ gate: "call_entity_batch", args: { intents } }],
});
const finish = { tool_calls: [{ gate: "done", args: { answer: "end" } }] };

/** Children whose intent is "<name>:<ms>" answer <name> after <ms>; "fail:*" fails. */
function timedWorker() {
  let running = 0;
  let peak = 0;
  const llm = new IntentLLM("worker", async (intent) => {
    const [name, ms] = intent.split(":");
    running++;
    peak = Math.max(peak, running);
    try {
      await delay(Number(ms ?? 0));
    } finally {
      running--;
    }
    if (name === "fail") return { fail: "provider exploded" };
    return { done: name };
  });
  return { llm, peak: () => peak };
}

const gateResult = (result: {
  loom: { turns(): { entity_id: string; gate_calls: { result: string }[] }[] };
  entityId: string;
}) =>
  JSON.parse(
    result.loom.turns().find((t) => t.entity_id === result.entityId)!.gate_calls[0]!.result,
  ) as unknown[];

describe("call_entity_batch (COMP-3)", () => {
  it("runs children concurrently and returns results in request order, not completion order", async () => {
    const { llm, peak } = timedWorker();
    const parent = parentCantrip({
      llm: scripted([batch(["slow:120", "medium:60", "fast:10"]), finish]),
      spawn: { llms: llmSource({}, { 1: llm }) },
    });
    const result = await parent.cast("fan out");
    expect(gateResult(result)).toEqual(["slow", "medium", "fast"]);
    // All three were running at once (in sequence the peak would be 1); how long that took is
    // the machine's business (255 ms against a 220 ms bound at a load of 25 on 2 cores).
    expect(peak()).toBe(3);
  });

  it("runs at most 8 at a time by default; a ward changes it", async () => {
    const intents = Array.from({ length: 12 }, (_, i) => `c${i}:40`);
    const first = timedWorker();
    const a = parentCantrip({
      llm: scripted([batch(intents), finish]),
      spawn: { llms: llmSource({}, { 1: first.llm }) },
    });
    expect(gateResult(await a.cast("x"))).toEqual(intents.map((i) => i.split(":")[0]));
    expect(first.peak()).toBe(8);
    const second = timedWorker();
    const b = parentCantrip({
      llm: scripted([batch(intents), finish]),
      wards: [{ max_turns: 5 }, { max_concurrent_children: 3 }],
      spawn: { llms: llmSource({}, { 1: second.llm }) },
    });
    await b.cast("x");
    expect(second.peak()).toBe(3);
  });

  it("refuses a batch above max_batch_size (default 50)", async () => {
    const { llm } = timedWorker();
    const parent = parentCantrip({
      llm: scripted([
        batch(Array.from({ length: 51 }, () => "x:0")),
        batch(["a:0", "b:0", "c:0"]),
        finish,
      ]),
      wards: [{ max_turns: 5 }],
      spawn: { llms: llmSource({}, { 1: llm }) },
    });
    const result = await parent.cast("x");
    const [first, second] = result.loom.turns().filter((t) => t.entity_id === result.entityId);
    expect(first!.gate_calls[0]).toMatchObject({ is_error: true });
    expect(first!.gate_calls[0]!.result).toMatch(/at most 50 proposals \(max_batch_size\); got 51/);
    expect(second!.gate_calls[0]!.is_error).toBe(false);
    const small = parentCantrip({
      llm: scripted([batch(["a:0", "b:0", "c:0"]), finish]),
      wards: [{ max_turns: 5 }, { max_batch_size: 2 }],
      spawn: { llms: llmSource({}, { 1: llm }) },
    });
    const refused = await small.cast("x");
    const record = refused.loom.turns().find((t) => t.entity_id === refused.entityId)!
      .gate_calls[0]!;
    expect(record).toMatchObject({ is_error: true });
    expect(record.result).toMatch(/at most 2 proposals/);
  });

  it("returns a failed child as { error } in its slot; the others and the parent go on (COMP-8)", async () => {
    const { llm } = timedWorker();
    const parent = parentCantrip({
      llm: scripted([
        batch(["a:0", "fail:0", { intent: "c:0", wards: [{ max_turns: 1 }] }]),
        finish,
      ]),
      spawn: { llms: llmSource({}, { 1: llm }) },
    });
    const result = await parent.cast("x");
    const [a, failed, c] = gateResult(result) as [string, { error: string }, string];
    expect(a).toBe("a");
    expect(failed.error).toMatch(/child entity failed: provider exploded/);
    expect(c).toBe("c");
    expect(result).toMatchObject({ terminated: true, result: "end" });
  });
});
