import { describe, expect, it } from "vitest";
import { delay, IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

const call = (args: Record<string, unknown>) => ({ tool_calls: [{ gate: "call_entity", args }] });
const finish = (answer: unknown) => ({ tool_calls: [{ gate: "done", args: { answer } }] });

describe("a child's failure (COMP-8)", () => {
  it("comes back to the parent as an error observation; the parent goes on", async () => {
    const child = new IntentLLM("worker", () => ({ fail: "rate limited forever" }));
    const parent = parentCantrip({
      llm: scripted([call({ intent: "x" }), finish("recovered")]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x");
    const first = result.loom.turns().find((t) => t.entity_id === result.entityId)!;
    expect(first.gate_calls[0]).toMatchObject({ gate_name: "call_entity", is_error: true });
    expect(first.gate_calls[0]!.result).toMatch(/child entity failed: rate limited forever/);
    expect(result).toMatchObject({ terminated: true, result: "recovered" });
  });

  it("is not a truncated child: that one returns how far it got, not an error (LOOP-4)", async () => {
    const child = new IntentLLM("worker", () => ({ call: "echo", args: { text: "again" } }));
    const parent = parentCantrip({
      llm: scripted([call({ intent: "loop", wards: [{ max_turns: 2 }] }), finish(1)]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x");
    const first = result.loom.turns().find((t) => t.entity_id === result.entityId)!;
    expect(first.gate_calls[0]!.is_error).toBe(false);
    const value = JSON.parse(first.gate_calls[0]!.result) as Record<string, unknown>;
    const childId = result.loom.turns().find((t) => t.entity_id !== result.entityId)!.entity_id;
    expect(value).toEqual({
      truncated: true,
      reason: "max_turns",
      turns: 2,
      summary:
        'Truncated by max_turns after 2 turns. Gates called: echo ×2. Last utterance: "echo({\\"text\\":\\"again\\"})"',
      last_utterance: 'echo({"text":"again"})',
      entity_id: childId,
    });
    expect(result).toMatchObject({ terminated: true, result: 1 });
  });

  it("is an Error the parent's code can catch", async () => {
    const child = new IntentLLM("worker", () => ({ fail: "boom" }));
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        {
          code: "let msg; try { call_entity('sub') } catch (e) { msg = e.message } done('caught: ' + msg)",
        },
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    expect((await parent.cast("x")).result).toMatch(/^caught: child entity failed: boom/);
  });
});

describe("a terminated parent (COMP-9)", () => {
  /**
   * A child that never finishes on its own: each turn takes 30 ms and calls echo. `onTurn` hears
   * each query (its intent and turn number), so a test can act on events, not on a guess of how
   * far the children got in so many ms (on a busy machine they had not started — issue 21).
   */
  const slowChild = (onTurn: (intent: string, turn: number) => void = () => {}) =>
    new IntentLLM("worker", async (intent, turn) => {
      onTurn(intent, turn);
      await delay(30);
      return { call: "echo", args: { text: `step ${turn}` } };
    });

  it("truncates running children with reason parent_terminated; their turns stay in the loom", async () => {
    // The child inherits the parent's timeout_ms (WARD-1) and starts later, so its own timer is
    // due after the parent's. Its second query waits until it is aborted, as a provider's does:
    // the child's turn cannot end on its own and find its own budget spent first (under
    // stress --cpu 8 it did, when its turns ran on past the 150 ms both shared — issue 21).
    const child = new IntentLLM("worker", (_intent, turn, _messages, signal) =>
      turn === 1
        ? { call: "echo", args: { text: "step 1" } }
        : new Promise<never>((_, reject) =>
            signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
          ),
    );
    const parent = parentCantrip({
      llm: scripted([call({ intent: "long job" }), finish("never")]),
      wards: [{ max_turns: 5 }, { timeout_ms: 2000 }],
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x");
    expect(result).toMatchObject({ truncated: true, reason: "timeout_ms" });
    const childTurns = result.loom.turns().filter((t) => t.entity_id !== result.entityId);
    expect(childTurns).toHaveLength(2);
    expect(childTurns.at(-1)).toMatchObject({ truncated: true, reason: "parent_terminated" });
    expect(childTurns[0]).toMatchObject({ truncated: false, terminated: false });
  });

  it("passes a caller's cancel down to every child of a batch", async () => {
    const controller = new AbortController();
    // The cancel comes once each of the three children has recorded a turn and asks again.
    const second = new Set<string>();
    const child = slowChild((intent, turn) => {
      if (turn === 2) second.add(intent);
      if (second.size === 3) controller.abort("user_cancel");
    });
    const parent = parentCantrip({
      llm: scripted([
        { tool_calls: [{ gate: "call_entity_batch", args: { intents: ["a", "b", "c"] } }] },
        finish("never"),
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x", { signal: controller.signal });
    expect(result).toMatchObject({ truncated: true, reason: "user_cancel" });
    const children = new Map<string, string | null>();
    for (const t of result.loom.turns())
      if (t.entity_id !== result.entityId) children.set(t.entity_id, t.reason);
    expect([...children.values()]).toEqual([
      "parent_terminated",
      "parent_terminated",
      "parent_terminated",
    ]);
  });
});
