import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  codeMedium,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
import { fork, forkPath } from "../../src/loom/fork.js";
import type { ScriptedResponse } from "../../src/llm/providers/scripted.js";

const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });

function echoCantrip(loom: Loom, responses: ScriptedResponse[]) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const cantrip = new Cantrip({
    llm,
    identity: { systemPrompt: "fork test" },
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] }),
    loom,
  });
  return { llm, cantrip };
}

describe("fork (LOOM-4)", () => {
  it("continues from turn N with another LLM; the original thread is untouched", async () => {
    const { cantrip } = echoCantrip(new Loom(), [echo("one"), echo("two"), { content: "end" }]);
    await cantrip.cast("start");
    const before = cantrip.loom.turns().map((t) => t.id);
    const other = new ScriptedLLM({ responses: [{ content: "forked" }], recordInputs: true });
    const r = await fork(cantrip, before[0]!, { intent: "again", llm: other });
    expect(r.result).toBe("forked");
    const sent = other.invocations[0]!.messages;
    expect(sent[0]).toEqual({ role: "system", content: "fork test" });
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(JSON.stringify(sent)).not.toContain("two");
    const turns = cantrip.loom.turns();
    expect(turns.slice(0, 3).map((t) => t.id)).toEqual(before);
    expect(turns[3]!.parent_id).toBe(before[0]);
    expect(cantrip.loom.thread(before[2]!).map((t) => t.id)).toEqual(before);
  });

  it("works from a loom file read by a new loom, as another process would", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "fork-")), "loom.jsonl");
    const first = echoCantrip(new Loom(new JsonlStore(path)), [echo("x"), { content: "end" }]);
    await first.cantrip.cast("go");
    first.cantrip.loom.close();
    const loom = new Loom(new JsonlStore(path));
    const again = echoCantrip(loom, [{ content: "resumed" }]);
    const at = loom.turns()[1]!.id;
    const r = await fork(again.cantrip, at, { intent: "and then?" });
    expect(r.result).toBe("resumed");
    expect(again.llm.invocations[0]!.messages.map((m) => m.content)).toEqual([
      "fork test",
      "go",
      null,
      "x",
      "end",
      "and then?",
    ]);
    expect(forkPath(loom, loom.turns()[2]!.id)).toHaveLength(3);
    loom.close();
  });

  it("refuses a turn the loom does not have", async () => {
    const { cantrip } = echoCantrip(new Loom(), []);
    await expect(fork(cantrip, "turn_nope", { intent: "x" })).rejects.toThrow(
      /cannot fork: no turn turn_nope/,
    );
  });

  it("a code-medium fork gets the recorded code back as messages (its sandbox starts fresh)", async () => {
    const llm = new ScriptedLLM({
      responses: [{ code: "var n = 1; n" }, { code: "done(n)" }, { code: "done(typeof n)" }],
      recordInputs: true,
    });
    const cantrip = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({ medium: codeMedium, gates: [doneGate()], wards: [{ max_turns: 4 }] }),
      loom: new Loom(),
    });
    await cantrip.cast("go");
    const r = await fork(cantrip, cantrip.loom.turns()[0]!.id, { intent: "what is n?" });
    const sent = JSON.stringify(llm.invocations[2]!.messages);
    expect(sent).toContain("var n = 1; n");
    // Not rebuilt by replay yet: documented in fork.ts and README.
    expect(r.result).toBe("undefined");
  });
});
