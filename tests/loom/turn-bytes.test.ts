/**
 * The bytes of an engine turn's line (issue 40): the loop's usual turn is one object literal and
 * each gate call's record is stamped as a new literal (so V8 keeps their hidden classes across a
 * full GC), and neither may change a byte of the loom. Each line of a cast is read back and
 * checked key by key, in order, then encoded again: JSON.parse keeps the order of the keys, so a
 * line equal to its re-encoding whose keys are these has the bytes it always had.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Gate } from "../../src/circle/gate.js";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";

const TURN = [
  "type",
  "id",
  "parent_id",
  "cantrip_id",
  "entity_id",
  "role",
  "sequence",
  "utterance",
  "observation",
  "gate_calls",
  "metadata",
  "reward",
  "terminated",
  "truncated",
  "reason",
];
const CALL = ["gate_name", "arguments", "result", "is_error", "started_at", "duration_ms"];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const later: Gate = {
  name: "later",
  description: "Answers after a tick.",
  parameters: { type: "object", properties: {} },
  execute: () => new Promise((resolve) => setImmediate(() => resolve("late"))),
};
const broken: Gate = {
  name: "broken",
  description: "Throws.",
  parameters: { type: "object", properties: {} },
  execute: () => {
    throw new Error("it broke");
  },
};

describe("an engine turn's line", () => {
  it("has the keys it always had, in order, for answered, asynchronous, failed and unknown calls", async () => {
    const dir = mkdtempSync(join(tmpdir(), "turn-bytes-"));
    dirs.push(dir);
    const path = join(dir, "loom.jsonl");
    const c = new Cantrip({
      llm: new ScriptedLLM({
        responses: [
          { tool_calls: [{ gate: "echo", args: { text: 'a "quoted" é ✓' } }] },
          { tool_calls: [{ gate: "later" }, { gate: "echo", args: { text: "b" } }] },
          { tool_calls: [{ gate: "broken" }] },
          { tool_calls: [{ gate: "nowhere" }] },
          { tool_calls: [{ gate: "done", args: { answer: "finished" } }] },
        ],
      }),
      identity: { systemPrompt: "bytes" },
      circle: new Circle({
        gates: [doneGate(), echoGate(), later, broken],
        wards: [{ max_turns: 9 }],
      }),
      loom: new Loom(new JsonlStore(path)),
    });
    const r = await c.cast("go");
    c.loom.close();
    expect(r).toMatchObject({ terminated: true, result: "finished", turns: 5 });
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    const turns = lines.filter((l) => l.startsWith('{"type":"turn"'));
    expect(turns).toHaveLength(5);
    const calls: string[] = [];
    for (const line of turns) {
      const turn = JSON.parse(line) as Record<string, unknown> & { gate_calls: object[] };
      const optional = turn["is_error"] ? ["is_error", "llm"] : ["llm"];
      expect(Object.keys(turn)).toEqual([...TURN, ...optional]);
      for (const call of turn.gate_calls) {
        expect(Object.keys(call)).toEqual(CALL);
        calls.push((call as { gate_name: string }).gate_name);
      }
      expect(JSON.stringify(turn)).toBe(line);
    }
    expect(calls).toEqual(["echo", "later", "echo", "broken", "nowhere", "done"]);
  });
});
