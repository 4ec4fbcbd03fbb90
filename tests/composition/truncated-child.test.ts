import { describe, expect, it } from "vitest";
import { IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

/** A child that never calls done: it echoes until a ward cuts it off. */
const looper = () =>
  new IntentLLM("looper", (intent, turn) => ({
    call: "echo",
    args: { text: `${intent} ${turn}` },
  }));

/** A child that answers at once. */
const answerer = () => new IntentLLM("answerer", (intent) => ({ done: `answer to ${intent}` }));

// The parents writing code ask for conversation children: these test LLMs answer with tool calls.
describe("a child cut off by a ward returns a value (COMP-2, LOOP-4)", () => {
  it("in code: the parent reads the value and goes on to done in the same block", async () => {
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        {
          code:
            "const r = call_entity({ intent: 'dig', medium: 'conversation', wards: [{ max_turns: 2 }] });\n" +
            "done(r.truncated ? 'cut off by ' + r.reason + ' after ' + r.turns + ': ' + r.last_utterance : r)",
        },
      ]),
      spawn: { llms: llmSource({}, { 1: looper() }) },
    });
    const result = await parent.cast("x");
    expect(result).toMatchObject({ terminated: true, turns: 1 });
    expect(result.result).toBe('cut off by max_turns after 2: echo({"text":"dig 2"})');
    const turn = result.loom.turns().find((t) => t.entity_id === result.entityId)!;
    expect(turn.gate_calls.map((g) => [g.gate_name, g.is_error])).toEqual([
      ["call_entity", false],
      ["done", false],
    ]);
  });

  it("carries the LOOP-4 summary and the child's entity id, whose truncated turn is in the loom", async () => {
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        {
          code: "done(call_entity({ intent: 'dig', medium: 'conversation', wards: [{ max_turns: 1 }] }))",
        },
      ]),
      spawn: { llms: llmSource({}, { 1: looper() }) },
    });
    const result = await parent.cast("x");
    const value = result.result as Record<string, unknown>;
    expect(value["summary"]).toMatch(/^Truncated by max_turns after 1 turn\. Gates called: echo\./);
    const childTurns = result.loom.turns().filter((t) => t.entity_id === value["entity_id"]);
    expect(childTurns).toHaveLength(1);
    expect(childTurns[0]).toMatchObject({ truncated: true, reason: "max_turns" });
  });

  it("in a batch: a cut-off child takes its slot as a value beside the others' answers", async () => {
    const both = new IntentLLM("mixed", (intent, turn) =>
      intent.startsWith("loop")
        ? { call: "echo", args: { text: `${turn}` } }
        : { done: `answer to ${intent}` },
    );
    const parent = parentCantrip({
      llm: scripted([
        {
          tool_calls: [
            {
              gate: "call_entity_batch",
              args: { intents: ["a", { intent: "loop", wards: [{ max_turns: 1 }] }, "b"] },
            },
          ],
        },
        { content: "parent done" },
      ]),
      spawn: { llms: llmSource({}, { 1: both }) },
    });
    const result = await parent.cast("x");
    const record = result.loom.turns().find((t) => t.entity_id === result.entityId)!.gate_calls[0]!;
    expect(record.is_error).toBe(false);
    const [a, cut, b] = JSON.parse(record.result) as [string, Record<string, unknown>, string];
    expect([a, b]).toEqual(["answer to a", "answer to b"]);
    expect(cut).toMatchObject({ truncated: true, reason: "max_turns", turns: 1 });
    expect(result).toMatchObject({ terminated: true, result: "parent done" });
  });

  it("a child that answered is its answer alone: no truncation fields", async () => {
    const parent = parentCantrip({
      code: true,
      llm: scripted([{ code: "done(call_entity({ intent: 'q', medium: 'conversation' }))" }]),
      spawn: { llms: llmSource({}, { 1: answerer() }) },
    });
    expect((await parent.cast("x")).result).toBe("answer to q");
  });

  it("caps a long last utterance; the whole of it stays in the loom", async () => {
    const long = "y".repeat(5000);
    const child = new IntentLLM("talker", () => ({ call: "echo", args: { text: long } }));
    const parent = parentCantrip({
      code: true,
      llm: scripted([
        {
          code: "done(call_entity({ intent: 'talk', medium: 'conversation', wards: [{ max_turns: 1 }] }))",
        },
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x");
    const value = result.result as { last_utterance: string; entity_id: string };
    // Cut at LAST_UTTERANCE_CHARS, less the run of key-like characters the cut would split
    // (up to 512: a cut through a secret would keep its start, tests/security/cut-quotes).
    expect(value.last_utterance.length).toBeLessThanOrEqual(2001);
    expect(value.last_utterance.length).toBeGreaterThan(2001 - 513);
    expect(value.last_utterance.endsWith("…")).toBe(true);
    const childTurn = result.loom.turns().find((t) => t.entity_id === value.entity_id)!;
    expect(childTurn.utterance).toContain(long);
  });
});
