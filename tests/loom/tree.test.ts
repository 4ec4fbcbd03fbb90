import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loomTreeCommand } from "../../src/cli/loom-export.js";
import { runCommand } from "../../src/cli/run.js";
import { loomTree } from "../../src/loom/reading/index.js";
import type { LoomRecord, Turn } from "../../src/loom/records/index.js";

const META = {
  tokens_prompt: 0,
  tokens_completion: 0,
  tokens_cached: 0,
  duration_ms: 0,
  timestamp: "",
};

const turn = (
  id: string,
  parent: string | null,
  seq: number,
  extra: Partial<Turn> = {},
): LoomRecord => ({
  type: "turn",
  id,
  parent_id: parent,
  cantrip_id: "c",
  entity_id: "e",
  role: "turn",
  sequence: seq,
  utterance: "",
  observation: "",
  gate_calls: [{ gate_name: "echo", arguments: "{}", result: "x", is_error: false }],
  metadata: {
    tokens_prompt: 0,
    tokens_completion: 0,
    tokens_cached: 0,
    duration_ms: 0,
    timestamp: "",
  },
  reward: null,
  terminated: false,
  truncated: false,
  reason: null,
  ...extra,
});

describe("spell loom tree", () => {
  it("keeps a thread in one column and indents the branches of a fork", () => {
    const lines = loomTree([
      turn("t1", null, 1),
      turn("t2", "t1", 2),
      turn("t3", "t2", 3, { terminated: true, reason: "done" }),
      turn("f3", "t2", 3, { truncated: true, reason: "max_turns" }),
    ]);
    expect(lines).toEqual([
      "#1 echo  [t1 · e]",
      "#2 echo  [t2 · e]",
      "├─ #3 echo → done  [t3 · e]",
      "└─ #3 echo → truncated (max_turns)  [f3 · e]",
    ]);
  });

  it("names a council's phase, loop and seat, and redacts", () => {
    const council = { council: { phase: "seat", loop: 2, seat: "pragmatist", step: "position" } };
    const lines = loomTree(
      [
        turn("t1", null, 1, {
          metadata: { ...META, ...council },
        }),
      ],
      (t) => t.replace("pragmatist", "[redacted]"),
    );
    expect(lines).toEqual(["#1 seat · loop 2 · [redacted] · position  [t1 · e]"]);
  });

  it("a turn whose parent the file lacks is a root", () => {
    expect(loomTree([turn("t5", "gone", 5)])).toEqual(["#5 echo  [t5 · e]"]);
  });
});

describe("spell loom tree on a council's loom", () => {
  it("shows triage, the seats of each loop, the red team, the judge and the synthesis", async () => {
    const loom = join(mkdtempSync(join(tmpdir(), "tree-")), "council.jsonl");
    const out: string[] = [];
    const io = {
      stdout: (t: string) => out.push(t),
      stderr: () => undefined,
      env: {},
      cwd: process.cwd(),
    };
    expect(await runCommand("spells/council.yaml", { loom, quiet: true }, io)).toBe(0);
    out.length = 0;
    expect(await loomTreeCommand(loom, io)).toBe(0);
    const text = out.join("");
    for (const phase of [
      /triage/,
      /seat · loop 1/,
      /red_team · loop 1/,
      /judge · loop 2/,
      /synthesis/,
    ])
      expect(text).toMatch(phase);
  });
});

describe("spell loom tree on a long thread", () => {
  it("draws a thread 100,000 turns deep (one column, no recursion)", () => {
    const records = Array.from({ length: 100_000 }, (_, i) =>
      turn(`t${i}`, i ? `t${i - 1}` : null, i + 1),
    );
    const lines = [...loomTree(records)];
    expect(lines).toHaveLength(100_000);
    expect(lines[99_999]).toBe("#100000 echo  [t99999 · e]");
  });
});
