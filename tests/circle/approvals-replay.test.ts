/**
 * Issue 25: a replay answers approvals from the record. A cast approved by a person is recorded
 * to a loom file; `spell test --replay`'s check runs it again with no approver present, and
 * every call is answered as recorded (nobody is asked), so the replay reproduces the run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayCheck } from "../../src/conformance/replay.js";
import { loadSpell } from "../../src/spell/index.js";
import type { ApprovalRecord } from "../../src/core/approval.js";
import type { Cantrip } from "../../src/core/cantrip.js";
import { ScriptedLLM } from "../../src/llm/providers/scripted.js";
import { fork } from "../../src/loom/core/index.js";
import type { Loom } from "../../src/loom/core/index.js";

const SPELL = `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: write, args: { path: out.txt, content: hello } }]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: {}
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 4 }]
  approve: [{ gate: write }]
`;

describe("replay of an approved cast", () => {
  it("answers from the record with no approver present, and never asks again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "approvals-replay-"));
    const spell = join(dir, "spell.yaml");
    const loom = join(dir, "run.jsonl");
    writeFileSync(spell, SPELL);
    const loaded = await loadSpell(spell, { loomPath: loom });
    const first = await loaded.cantrip!.cast("write it", { onApproval: () => true });
    expect(first.status).toBe("terminated");
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("hello");
    rmSync(join(dir, "out.txt"));

    let asked = 0;
    const replayed = await replayCheck(spell, loom, {
      onApproval: () => {
        asked++;
        return false;
      },
    });
    expect(replayed.message).toBe("");
    expect(replayed.status).toBe("pass");
    expect(asked).toBe(0);
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("hello");
  });

  it("a fork answers a recorded call from the record; a divergent one is asked (denied when no one can)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "approvals-fork-"));
    const spell = join(dir, "spell.yaml");
    writeFileSync(spell, SPELL);
    const loaded = await loadSpell(spell, { loomPath: "memory" });
    const cantrip = loaded.cantrip as Cantrip<Loom>;
    const first = await cantrip.cast("write it", { onApproval: () => true });
    const at = first.loom.turns()[0]!.id;
    const write = (content: string) => ({
      tool_calls: [{ gate: "write", args: { path: "out.txt", content } }],
    });
    const llm = new ScriptedLLM({
      responses: [
        write("hello"),
        write("other"),
        { tool_calls: [{ gate: "done", args: { answer: "x" } }] },
      ],
    });
    const forked = await fork(cantrip, at, { intent: "again", llm });
    const turns = forked.loom.turns().filter((t) => t.entity_id === forked.entityId);
    const records = turns.flatMap((t) => (t.metadata["approvals"] ?? []) as ApprovalRecord[]);
    expect(
      records.map((r) => [
        (JSON.parse(r.arguments) as { content: string }).content,
        r.allowed,
        r.by,
      ]),
    ).toEqual([
      ["hello", true, "record"],
      ["other", false, "none"],
    ]);
    expect(turns[1]!.gate_calls[0]!.result).toMatch(/approval denied \(no approver/);
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("hello");
  });
});
