import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  Loom,
  ScriptedLLM,
  type Gate,
  type LLM,
  type ToolCall,
} from "../../src/index.js";
import { isoNow } from "../../src/core/clock.js";

const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0 };

/** An LLM that answers with the given tool calls, then done. */
function replying(calls: ToolCall[]): LLM {
  let n = 0;
  return {
    name: "fixed",
    query: () =>
      Promise.resolve(
        n++ === 0
          ? { content: null, toolCalls: calls, usage }
          : {
              content: null,
              toolCalls: [{ id: "d", name: "done", arguments: '{"answer":"ok"}' }],
              usage,
            },
      ),
  };
}

describe("the turn's hot path keeps its meaning", () => {
  it("a call the provider decoded is run with that object; the record keeps the JSON text", async () => {
    const seen: unknown[] = [];
    const spy: Gate = {
      name: "spy",
      description: "records its arguments",
      parameters: { type: "object", properties: { n: { type: "number" } } },
      execute: (args) => (seen.push(args), "ok"),
    };
    const input = { n: 7 };
    const c = new Cantrip({
      llm: replying([{ id: "a", name: "spy", arguments: '{"n":7}', input }]),
      identity: {},
      circle: new Circle({ gates: [doneGate(), spy], wards: [{ max_turns: 3 }] }),
    });
    await c.cast("go");
    expect(seen[0]).toBe(input); // not a re-parsed copy
    expect(c.loom.turns()[0]!.gate_calls[0]).toEqual({
      gate_name: "spy",
      arguments: '{"n":7}',
      result: "ok",
      is_error: false,
      started_at: expect.any(String) as string,
      duration_ms: expect.any(Number) as number,
    });
  });

  it("a call with only JSON text is parsed and checked as before", async () => {
    const c = new Cantrip({
      llm: replying([{ id: "a", name: "echo", arguments: '{"text": 5}' }]),
      identity: {},
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 3 }] }),
    });
    await c.cast("go");
    expect(c.loom.turns()[0]!.gate_calls[0]).toMatchObject({
      arguments: '{"text": 5}',
      is_error: true,
      result: 'echo: argument "text" must be of type string',
    });
  });

  it("the scripted provider hands over its arguments decoded, and only objects", async () => {
    const llm = new ScriptedLLM({
      responses: [
        {
          tool_calls: [
            { gate: "echo", args: { text: "a" } },
            { gate: "echo", args: [1] },
          ],
        },
      ],
    });
    const r = await llm.query([{ role: "user", content: "x" }]);
    expect(r.toolCalls![0]).toMatchObject({ arguments: '{"text":"a"}', input: { text: "a" } });
    expect(r.toolCalls![1]!.input).toBeUndefined();
    const code = await new ScriptedLLM({ responses: [{ code: "done(1)" }] }).query([]);
    expect(code.toolCalls![0]).toMatchObject({
      name: "js",
      arguments: '{"code":"done(1)"}',
      input: { code: "done(1)" },
    });
    expect(r.toolCalls![1]!.arguments).toBe("[1]");
  });

  it("a scripted call hands its gate an object of its own, as its JSON text says", async () => {
    const seen: unknown[] = [];
    const grabby: Gate = {
      name: "grabby",
      description: "changes its arguments",
      parameters: { type: "object" },
      execute: (args) => {
        seen.push(structuredClone(args));
        (args["items"] as unknown[]).push("seen");
        return "ok";
      },
    };
    const items = ["a"];
    const responses = [
      { tool_calls: [{ gate: "grabby", args: { items, n: Number.NaN } }] },
      { tool_calls: [{ gate: "done", args: { answer: 1 } }] },
    ];
    const cast = () =>
      new Cantrip({
        llm: new ScriptedLLM({ responses }),
        identity: {},
        circle: new Circle({ gates: [doneGate(), grabby], wards: [{ max_turns: 3 }] }),
      }).cast("go");
    await cast();
    await cast();
    expect(seen).toEqual([
      { items: ["a"], n: null },
      { items: ["a"], n: null },
    ]);
    expect(items).toEqual(["a"]);
  });

  it("a turn appended twice is refused: the loom is append-only", () => {
    const loom = new Loom();
    const c = new Cantrip({
      llm: new ScriptedLLM({
        responses: [{ tool_calls: [{ gate: "done", args: { answer: 1 } }] }],
      }),
      identity: {},
      circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
      loom,
    });
    return c.cast("go").then(() => {
      const turn = loom.turns()[0]!;
      expect(() => loom.append({ ...turn })).toThrow(
        `loom is append-only: turn ${turn.id} already exists`,
      );
      expect(loom.size).toBe(1);
    });
  });

  it("lookups see every turn, whether made before or after the first lookup", async () => {
    const loom = new Loom();
    const make = () =>
      new Cantrip({
        llm: new ScriptedLLM({
          responses: [{ tool_calls: [{ gate: "done", args: { answer: 1 } }] }],
        }),
        identity: {},
        circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
        loom,
      });
    const a = await make().cast("one");
    expect(loom.get(a.lastTurnId!)?.id).toBe(a.lastTurnId); // the index is built here
    const b = await make().cast("two");
    expect(loom.get(b.lastTurnId!)?.id).toBe(b.lastTurnId); // and kept current after
    expect(() => loom.append({ ...loom.get(b.lastTurnId!)! })).toThrow("loom is append-only");
  });

  it("leaves are the turns nobody continues, one per thread", async () => {
    const loom = new Loom();
    const make = () =>
      new Cantrip({
        llm: new ScriptedLLM({
          responses: [
            { tool_calls: [{ gate: "echo", args: { text: "a" } }] },
            { tool_calls: [{ gate: "done", args: { answer: 1 } }] },
          ],
        }),
        identity: {},
        circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 3 }] }),
        loom,
      });
    const a = await make().cast("one");
    const b = await make().cast("two");
    expect(loom.leaves().map((t) => t.id)).toEqual([a.lastTurnId, b.lastTurnId]);
  });

  it("timestamps are ISO 8601 and follow the clock", async () => {
    const first = isoNow();
    expect(new Date(first).toISOString()).toBe(first);
    await new Promise((r) => setTimeout(r, 5));
    expect(isoNow() > first).toBe(true);
  });
});
