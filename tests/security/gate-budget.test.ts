/**
 * Issue 20: in every medium, the bytes a turn's gate calls may record (arguments + results) are
 * bounded — 16 MiB by default, `max_gate_record_kb` to change it. Past the budget a gate call is
 * an error the entity sees, and the loom record stays bounded. (The bash medium: see
 * bash-gate-socket.test.ts.)
 */
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DefaultCantrip as Cantrip } from "../../src/default-cantrip.js";
import { Circle } from "../../src/circle/circle.js";
import { doneGate, echoGate } from "../../src/circle/gates/index.js";
import { ScriptedLLM } from "../../src/llm/providers/scripted.js";
import { Loom } from "../../src/loom/core/index.js";
import { JsonlStore } from "../../src/loom/stores/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { fork } from "../../src/loom/core/index.js";
import { codeCantrip } from "../circle/code-helpers.js";

const KiB = 1024;
const MiB = 1024 * KiB;

const recordedBytes = (turn: Turn) =>
  turn.gate_calls.reduce(
    (n, r) => n + Buffer.byteLength(r.arguments) + Buffer.byteLength(r.result),
    0,
  );

/** Calls echo with 100 KB N times, each in a try, and reports how many worked and the last error. */
const ECHO_LOOP = (n: number) =>
  `var s = "x".repeat(100000), ok = 0, failed = 0, last = "";
for (var i = 0; i < ${n}; i++) { try { echo(s); ok++ } catch (e) { failed++; last = String(e.message) } }
[ok, failed, last].join(" | ")`;

describe("the gate calls of a turn have a budget (issue 20)", () => {
  it("code: 200 echo calls of 100 KB stop at 16 MiB; the loom file stays bounded", async () => {
    // Before: 200 × 200 KB = 40 MB recorded in one turn (2,000 calls took the host to 3.3 GB).
    const dir = mkdtempSync(join(tmpdir(), "gate-budget-"));
    const loom = new Loom(new JsonlStore(join(dir, "loom.jsonl")));
    const { cantrip } = codeCantrip([ECHO_LOOP(200), "done(1)"], {
      loom,
      wards: [{ max_turns: 3 }],
    });
    const result = await cantrip.cast("flood");
    expect(result.terminated).toBe(true);
    const turn = result.loom.turns()[0]!;
    // 16 MiB holds 83 calls of 200 KB; the 84th and every later one is refused.
    expect(turn.observation).toMatch(/result: "83 \| 117 \| .*over the budget of 16777216 bytes/);
    expect(recordedBytes(turn)).toBeLessThanOrEqual(16 * MiB + 4 * KiB);
    expect(turn.gate_calls.filter((r) => r.is_error)).toHaveLength(1);
    // The file holds the turn's records once (results ≥ 1 KiB are stored once per turn).
    expect(statSync(join(dir, "loom.jsonl")).size).toBeLessThan(20 * MiB);
  });

  it("code: max_gate_record_kb lowers it, and the error names both numbers", async () => {
    const { cantrip } = codeCantrip([ECHO_LOOP(20), ECHO_LOOP(2), "done(1)"], {
      wards: [{ max_turns: 4 }, { max_gate_record_kb: 1024 }],
    });
    const result = await cantrip.cast("flood");
    const [first, second] = result.loom.turns();
    // 1 MiB holds 5 calls of 200,011 bytes; the sixth's arguments (100,011) would pass it, so
    // it does not run.
    expect(first!.observation).toContain(
      "5 | 15 | gate call refused: this turn's gate calls would record 1100066 bytes, over the budget of 1048576 bytes (max_gate_record_kb)",
    );
    expect(recordedBytes(first!)).toBeLessThanOrEqual(MiB + 4 * KiB);
    // The next turn has a budget of its own.
    expect(second!.observation).toContain('"2 | 0 | "');
  });

  it("conversation: many large tool calls in one reply stop at the budget of 16 MiB", async () => {
    // Before: 20 calls of 1 MB recorded whole, 40 MB in one turn.
    const text = "y".repeat(1_000_000);
    const calls = Array.from({ length: 20 }, (_, i) => ({
      gate: "echo",
      args: { text },
      id: `c${i}`,
    }));
    const llm = new ScriptedLLM({
      responses: [{ tool_calls: calls }, { tool_calls: [{ gate: "done", args: { answer: 1 } }] }],
      recordInputs: true,
    });
    const cantrip = new Cantrip({
      llm,
      identity: { systemPrompt: "You call tools." },
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 3 }] }),
    });
    const result = await cantrip.cast("flood");
    expect(result.terminated).toBe(true);
    const turn = result.loom.turns()[0]!;
    expect(recordedBytes(turn)).toBeLessThanOrEqual(16 * MiB + 4 * KiB);
    // Eight calls of 2 MB fit; the ninth is refused in the record; the rest are refused, not
    // recorded — but every call's tool message says so, and the history stays paired.
    expect(turn.gate_calls).toHaveLength(9);
    expect(turn.gate_calls[8]!.result).toContain("over the budget of 16777216 bytes");
    const messages = llm.invocations[1]!.messages.filter((m) => m.role === "tool");
    expect(messages).toHaveLength(20);
    expect(messages.filter((m) => m.isError)).toHaveLength(12);
  });

  it("code: a fork replays a turn whose calls were refused past the budget (LOOM-13)", async () => {
    const { cantrip } = codeCantrip(
      [ECHO_LOOP(10) + "; var kept = ok", "done(kept)", "done([kept, failed])"],
      { wards: [{ max_turns: 5 }, { max_gate_record_kb: 512 }], loom: new Loom() },
    );
    const first = await cantrip.cast("flood");
    expect(first.result).toBe(2);
    // Turn 1 recorded 2 calls and one refusal; the 7 later refusals have no record to replay.
    const turn = cantrip.loom.turns()[0]!;
    expect(turn.gate_calls).toHaveLength(3);
    // Forked from the cantrip the cast returned: its scripted model goes on after the cast's replies.
    const r = await fork(first.nextCantrip, turn.id, { intent: "again" });
    expect(r.result).toEqual([2, 8]);
  });
});
