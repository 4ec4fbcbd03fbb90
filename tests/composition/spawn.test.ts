import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { spawnConfigOf } from "../../src/circle/gates/call-entity-config.js";
import { CHILD_IDENTITY } from "../../src/circle/spawn/index.js";
import { IntentLLM, llmSource, parentCantrip, scripted } from "./helpers.js";

const callChild = (args: Record<string, unknown>) => ({
  tool_calls: [{ gate: "call_entity", args }],
});
const finish = (answer: unknown) => ({ tool_calls: [{ gate: "done", args: { answer } }] });

describe("call_entity: one child", () => {
  it("blocks the parent until the child is done and returns the child's answer (COMP-2)", async () => {
    const child = new IntentLLM("worker", (intent) => ({ done: `summary of ${intent}` }));
    const parent = parentCantrip({
      llm: scripted([callChild({ intent: "chapter 1" }), finish("ok")]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("summarize the book");
    const [spawning] = result.loom.turns().filter((t) => t.entity_id === result.entityId);
    expect(spawning!.gate_calls[0]).toMatchObject({
      gate_name: "call_entity",
      result: "summary of chapter 1",
      is_error: false,
    });
    expect(result).toMatchObject({ terminated: true, result: "ok" });
  });

  it("gives the child its own context and a generic identity, never the parent's (COMP-4, COMP-10)", async () => {
    const child = new IntentLLM("worker", () => ({ done: 1 }));
    const parent = parentCantrip({
      llm: scripted([
        {
          content: "thinking out loud",
          tool_calls: [{ gate: "call_entity", args: { intent: "sub task" } }],
        },
        finish(1),
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    await parent.cast("the parent's intent");
    const first = child.queries[0]!;
    expect(first.map((m) => m.role)).toEqual(["system", "user"]);
    expect(first[0]!.content).toBe(CHILD_IDENTITY);
    expect(first[1]!.content).toBe("sub task");
    expect(JSON.stringify(first)).not.toContain("PARENT");
    expect(JSON.stringify(first)).not.toContain("the parent's intent");
    expect(JSON.stringify(first)).not.toContain("thinking out loud");
  });

  it("passes context after the intent to a conversation child, and a proposed identity", async () => {
    const child = new IntentLLM("worker", () => ({ done: 1 }));
    const parent = parentCantrip({
      llm: scripted([
        callChild({
          intent: "count",
          context: { items: [1, 2] },
          identity: { system_prompt: "You count.", temperature: 0 },
        }),
        finish(1),
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    await parent.cast("x");
    const [system, user] = child.queries[0]!;
    expect(system!.content).toBe("You count.");
    expect(user!.content).toContain("count\n\nContext:\n");
    expect(user!.content).toContain('"items"');
  });

  it("records the child's turns in the parent's loom, its root under the spawning turn (COMP-5, LOOM-8, LOOM-12)", async () => {
    const child = new IntentLLM("worker", (_i, turn) =>
      turn === 1 ? { call: "echo", args: { text: "step" } } : { done: "fine" },
    );
    const parent = parentCantrip({
      llm: scripted([
        { tool_calls: [{ gate: "echo", args: { text: "first" } }] },
        callChild({ intent: "do it" }),
        finish("end"),
      ]),
      spawn: { llms: llmSource({}, { 1: child }) },
    });
    const result = await parent.cast("x");
    const turns = result.loom.turns();
    const parentTurns = turns.filter((t) => t.entity_id === result.entityId);
    const childTurns = turns.filter((t) => t.entity_id !== result.entityId);
    expect(parentTurns).toHaveLength(3);
    expect(childTurns).toHaveLength(2);
    expect(childTurns[0]!.parent_id).toBe(parentTurns[1]!.id);
    expect(childTurns[1]!.parent_id).toBe(childTurns[0]!.id);
    expect(parentTurns[2]!.parent_id).toBe(parentTurns[1]!.id);
    // One tree: the child's thread runs through the parent's first two turns.
    expect(result.loom.thread(childTurns[1]!.id).map((t) => t.id)).toEqual([
      parentTurns[0]!.id,
      parentTurns[1]!.id,
      ...childTurns.map((t) => t.id),
    ]);
    expect(result.loom.leaves()).toHaveLength(2);
  });

  it("lets the proposal choose the child's llm by name, and its gates (COMP-1, COMP-7)", async () => {
    const fast = new IntentLLM("fast", () => ({ call: "echo", args: { text: "from fast" } }));
    const parent = parentCantrip({
      llm: scripted([
        callChild({ intent: "use echo", llm: "fast", gates: ["echo"], wards: [{ max_turns: 1 }] }),
        finish(1),
      ]),
      spawn: { llms: llmSource({ fast: { llm: fast } }) },
    });
    const result = await parent.cast("x");
    expect(fast.queries).toHaveLength(1);
    // The child's circle: echo and done (CIRCLE-1), no delegation at depth 0 (COMP-11).
    const spawning = result.loom.turns().find((t) => t.entity_id === result.entityId)!;
    const value = JSON.parse(spawning.gate_calls[0]!.result) as Record<string, unknown>;
    expect(value["truncated"]).toBe(true);
    expect(value["summary"]).toMatch(/^Truncated by max_turns after 1 turn. Gates called: echo/);
  });

  it("refuses an llm name nobody knows, with the names it knows", async () => {
    const parent = parentCantrip({
      llm: scripted([callChild({ intent: "x", llm: "mystery" }), finish(1)], "boss"),
    });
    const result = await parent.cast("x");
    expect(result.loom.turns()[0]!.gate_calls[0]).toMatchObject({ is_error: true });
    expect(result.loom.turns()[0]!.gate_calls[0]!.result).toMatch(
      /no llm named "mystery"; children may use: boss/,
    );
  });

  it("a name like toString is no llm of call_entity's llms, not a broken entry", async () => {
    const lookup = {
      free: () => undefined,
      isFree: () => false,
      dependencies: () => undefined,
      names: () => [],
    };
    const deps = { llms: { fast: { provider: "scripted", responses: [] } } };
    const { llms } = spawnConfigOf(deps, { baseDir: tmpdir(), env: {} }, lookup);
    expect(llms?.names()).toEqual(["fast"]);
    for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"])
      expect(await llms?.pick(name, 1)).toBeUndefined();
    expect((await llms?.pick("fast", 1))?.llm.name).toMatch(/scripted/);
  });

  it("uses the parent's llm when nothing else is configured", async () => {
    const llm = scripted([
      callChild({ intent: "inner" }),
      finish("child answer"),
      finish("parent answer"),
    ]);
    const result = await parentCantrip({ llm }).cast("outer");
    expect(result.result).toBe("parent answer");
    expect(result.loom.turns()[0]!.gate_calls[0]!.result).toBe("child answer");
  });

  it("refuses a proposal without an intent, and unknown fields", async () => {
    const parent = parentCantrip({
      llm: scripted([callChild({ intent: "" }), callChild({ intent: "a", budget: 3 }), finish(1)]),
    });
    const result = await parent.cast("x");
    const [a, b] = result.loom.turns();
    expect(a!.gate_calls[0]!.result).toMatch(/missing required argument|intent is required/);
    expect(b!.gate_calls[0]!.result).toMatch(/unknown field "budget"/);
  });
});
