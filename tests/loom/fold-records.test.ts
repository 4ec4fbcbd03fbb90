import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  foldingView,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
import { exportJsonl } from "../../src/loom/reading/index.js";

const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });

describe("fold records in a JSONL loom", () => {
  it("are written beside the turns and read back by a new loom", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "fold-loom-")), "loom.jsonl");
    const c = new Cantrip({
      llm: new ScriptedLLM({
        responses: [echo("x1"), echo("x2"), echo("x3"), { content: "end" }],
      }),
      identity: {},
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] }),
      loom: new Loom(new JsonlStore(path)),
      view: foldingView({ triggerAfterTurns: 2, keepRecentTurns: 1 }),
    });
    await c.cast("go");
    c.loom.close();
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.filter((l) => l.type === "turn")).toHaveLength(4);
    expect(lines.filter((l) => l.type === "fold")).toHaveLength(1);
    const again = new Loom(new JsonlStore(path));
    expect(again.turns()).toHaveLength(4);
    const [fold] = again.folds();
    expect(fold).toMatchObject({ from_sequence: 1, to_sequence: 2, strategy: "template" });
    expect(fold!.summary).toContain("x1");
    expect(again.folds(fold!.entity_id)).toHaveLength(1);
    expect(again.folds("someone_else")).toHaveLength(0);
    expect(exportJsonl(again)).toContain('"type":"fold"');
    again.close();
  });
});
