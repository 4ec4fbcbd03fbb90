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

/**
 * turnRecord as it was before a loop's usual turn became one object literal (issue 40): the
 * record, then its optional keys added. The records and their lines must not differ.
 */
function addedKeysRecord(
  h: typeof head,
  c: Parameters<typeof turnRecord>[1],
  cost: Parameters<typeof turnRecord>[2],
  outcome: Parameters<typeof turnRecord>[3],
): Turn {
  const turn = turnRecord(
    h,
    { ...c, isError: undefined },
    { ...cost, llm: undefined, costUsd: undefined },
    outcome,
  );
  if (c.isError) turn.is_error = true;
  if (cost.llm) turn.llm = cost.llm;
  if (cost.costUsd !== undefined) turn.cost_usd = cost.costUsd;
  return turn;
}

describe("turnRecord", () => {
  it("builds the record it built when it added the optional keys: same keys, order, values, line", () => {
    const llms = [
      undefined,
      { provider: "scripted", model: null },
      { provider: "openai", model: "m" },
    ];
    for (const llm of llms)
      for (const costUsd of [undefined, 0, 0.002])
        for (const isError of [undefined, false, true])
          for (const outcome of [
            { kind: "continue" } as const,
            { kind: "truncated", reason: "max_turns" } as const,
          ]) {
            const cost = { usage, durationMs: 0.125, extra: { intent: "go" }, llm, costUsd };
            const turn = turnRecord(head, { ...content, isError }, cost, outcome);
            // The same timestamp in both (isoNow may have moved on by a millisecond).
            const before = {
              ...addedKeysRecord(head, { ...content, isError }, cost, outcome),
              metadata: turn.metadata,
            };
            expect(Object.keys(turn)).toEqual(Object.keys(before));
            expect(turn).toStrictEqual(before);
            expect(encodeTurn(turn, true)).toBe(encodeTurn(before, true));
            expect(encodeTurn(turn, true)).toBe(general(before));
          }
  });
});

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
