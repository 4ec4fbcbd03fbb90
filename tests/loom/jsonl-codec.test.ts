import { describe, expect, it } from "vitest";
import { decodeRecord, encodeTurn } from "../../src/loom/jsonl/index.js";
import { turnRecord, type Turn } from "../../src/loom/records/index.js";

/** The line every turn had before the engine's turns got a path of their own (issue 40). */
const general = (turn: Turn): string => `{"type":"turn",${JSON.stringify(turn).slice(1)}\n`;

const head = {
  id: "turn_1",
  parentId: "turn_0",
  cantripId: "cantrip_1",
  entityId: "ent_1",
  sequence: 2,
};
const content = {
  utterance: 'echo({"text":"a \\"quoted\\" line\\nand é ✓"})',
  observation: "echo: a line",
  gateCalls: [
    {
      gate_name: "echo",
      arguments: '{"text":"a"}',
      result: "a",
      is_error: false,
      started_at: "2026-01-01T00:00:00.000Z",
      duration_ms: 0.25,
    },
  ],
};
const usage = { promptTokens: 10, completionTokens: 5, cachedTokens: 0 };

describe("encodeTurn", () => {
  it("writes an engine turn as { type: 'turn', ...turn }, with or without its optional keys", () => {
    const costs = [
      { usage, durationMs: 1.5, extra: undefined },
      { usage, durationMs: 1.5, extra: { llm_response: { content: null } }, costUsd: 0.002 },
      { usage, durationMs: 1.5, extra: undefined, llm: { provider: "scripted", model: null } },
      {
        usage,
        durationMs: 1.5,
        extra: { intent: "go" },
        llm: { provider: "openai", model: "m" },
        costUsd: 0,
      },
    ];
    for (const cost of costs) {
      for (const outcome of [
        { kind: "continue" } as const,
        { kind: "terminated", reason: "done", result: 1 } as const,
      ]) {
        for (const isError of [undefined, true]) {
          const turn = turnRecord(head, { ...content, isError }, cost, outcome);
          const line = encodeTurn(turn, true);
          expect(line).toBe(general(turn));
          expect(decodeRecord(JSON.parse(line))).toEqual({ type: "turn", ...turn });
        }
      }
    }
  });

  it("writes a turn whose keys are its own, or in another order, as it always did", () => {
    const turn = turnRecord(
      head,
      content,
      { usage, durationMs: 1, extra: undefined },
      {
        kind: "continue",
      },
    );
    const { id, ...rest } = turn;
    const cases: Turn[] = [
      { ...rest, id }, // id last
      { ...turn, extra: "kept" } as Turn, // a key the engine does not write
      { type: "odd", ...turn } as Turn, // a type of its own comes first and is kept
      Object.assign(Object.create({ inherited: true }) as Turn, turn),
      { ...turn, llm: undefined, cost_usd: 0.5, is_error: true }, // optional keys reordered
    ];
    for (const c of cases) expect(encodeTurn(c, true)).toBe(general(c));
    // An object with toJSON of its own is encoded through it, as JSON.stringify does.
    class Shown {
      constructor(readonly t: Turn) {}
      toJSON() {
        return { id: "shown" };
      }
    }
    const shown = Object.assign(new Shown(turn), turn) as unknown as Turn;
    expect(encodeTurn(shown, true)).toBe('{"type":"turn","id":"shown"}\n');
  });

  it("a turn missing a key the engine always writes is written as it is", () => {
    const turn = turnRecord(
      head,
      content,
      { usage, durationMs: 1, extra: undefined },
      {
        kind: "continue",
      },
    );
    const { reward: _, ...noReward } = turn;
    expect(encodeTurn(noReward as Turn, true)).toBe(general(noReward as Turn));
    expect(encodeTurn(noReward as Turn, true)).not.toContain('"reward"');
  });

  it("shares a big result once, whichever path the turn takes", () => {
    const big = "x".repeat(2048);
    const turn = turnRecord(
      head,
      {
        utterance: "",
        observation: `read: ${big}`,
        gateCalls: [{ gate_name: "read", arguments: "{}", result: big, is_error: false }],
      },
      { usage, durationMs: 1, extra: undefined },
      { kind: "continue" },
    );
    const line = encodeTurn(turn, true);
    expect(line.split(big).length).toBe(2);
    expect(decodeRecord(JSON.parse(line))).toEqual({ type: "turn", ...turn });
    expect(encodeTurn(turn, false)).toBe(general(turn));
  });
});
