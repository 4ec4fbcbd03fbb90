/**
 * Every `tool_call` event is followed by its `tool_result` (§7.5), a call refused before it ran
 * included: a gate budget's refusal (max_gate_record_kb), an approval denied, an unknown gate,
 * a path outside a root, arguments that are not JSON. The casts run the real loader, circle and
 * mediums with the scripted provider; the events are read as a listener sees them.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CantripEvent } from "../../src/core/events.js";
import { loadSpell } from "../../src/spell/index.js";

async function castEvents(spell: string, approve?: boolean): Promise<CantripEvent[]> {
  const dir = mkdtempSync(join(tmpdir(), "refused-events-"));
  writeFileSync(join(dir, "spell.yaml"), spell);
  writeFileSync(join(dir, "a.txt"), "x".repeat(3000));
  const loaded = await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });
  const events: CantripEvent[] = [];
  await loaded.cantrip!.cast("go", {
    onEvent: (e) => events.push(e),
    ...(approve === undefined ? {} : { onApproval: () => approve }),
  });
  return events;
}

/** The calls and results in order: each call answered by one result of its gate, before the next step ends. */
function pairs(events: CantripEvent[]): { gate: string; result?: string; isError?: boolean }[] {
  const open: { gate: string; result?: string; isError?: boolean }[] = [];
  const all: typeof open = [];
  for (const e of events) {
    if (e.type === "tool_call") {
      const call = { gate: e.gate };
      open.push(call);
      all.push(call);
    } else if (e.type === "tool_result") {
      const at = open.findIndex((c) => c.gate === e.record.gate_name);
      expect(
        at,
        `a tool_result for ${e.record.gate_name} with no tool_call`,
      ).toBeGreaterThanOrEqual(0);
      const [call] = open.splice(at, 1);
      call!.result = e.record.result;
      call!.isError = e.record.is_error;
    } else if (e.type === "step_complete") {
      expect(
        open.map((c) => c.gate),
        "tool_calls without a tool_result at step end",
      ).toEqual([]);
    }
  }
  return all;
}

/** A spell whose first reply makes `calls`; `wards` and `circle` are added to its circle. */
const SPELL = (calls: string, wards = "", circle = "") => `
llm:
  provider: scripted
  responses:
    - tool_calls: [${calls}]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: { system_prompt: You read. }
circle:
  gates: [done, { read: { root: . } }, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 4 }${wards}]
${circle}`;

describe("a refused gate call still has its tool_result", () => {
  it("past the gate budget: the recorded refusal and every later unrecorded one", async () => {
    const read = "{ gate: read, args: { path: a.txt } }";
    const events = await castEvents(
      SPELL(`${read}, ${read}, ${read}, ${read}`, ", { max_gate_record_kb: 4 }"),
    );
    const reads = pairs(events).filter((c) => c.gate === "read");
    expect(reads).toHaveLength(4);
    expect(reads[0]).toMatchObject({ isError: false });
    for (const c of reads.slice(1)) {
      expect(c.isError).toBe(true);
      expect(c.result).toMatch(/^gate call refused: this turn's gate calls would record/);
    }
  });

  it("past the gate budget in the code medium: a loop that catches the refusal and calls again", async () => {
    const code = `let n = 0; for (let i = 0; i < 5; i++) { try { read({ path: "a.txt" }); } catch (e) { n++; } } n`;
    const events = await castEvents(`
llm:
  provider: scripted
  responses:
    - code: ${JSON.stringify(code)}
    - code: done("finished")
identity: { system_prompt: You read. }
circle:
  medium: code
  gates: [done, { read: { root: . } }]
  wards: [{ max_turns: 4 }, { max_gate_record_kb: 4 }]
`);
    const reads = pairs(events).filter((c) => c.gate === "read");
    expect(reads).toHaveLength(5);
    expect(reads.filter((c) => c.isError)).toHaveLength(4);
  });

  it("an approval denied, an unknown gate, a path outside the root, arguments that are not JSON", async () => {
    const events = await castEvents(
      SPELL(
        `{ gate: write, args: { path: b.txt, content: hi } }, { gate: nosuch, args: {} }, ` +
          `{ gate: read, args: { path: ../outside.txt } }, { gate: read, args: "{not json" }`,
        "",
        "  approve: [{ gate: write }]",
      ),
      false,
    );
    const calls = pairs(events).filter((c) => c.gate !== "done");
    expect(calls.map((c) => [c.gate, c.isError])).toEqual([
      ["write", true],
      ["nosuch", true],
      ["read", true],
      ["read", true],
    ]);
    expect(calls[0]!.result).toMatch(/approval denied/);
  });
});
