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
  type Gate,
} from "../../src/index.js";
import { fork, forkPath } from "../../src/loom/core/index.js";
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

  it("a code-medium fork replays the recorded code; gates are answered from the loom (LOOM-13)", async () => {
    let calls = 0;
    const counter: Gate = {
      name: "counter",
      description: "counts its real calls",
      parameters: { type: "object", properties: {} },
      execute: () => ({ count: ++calls }),
    };
    const llm = new ScriptedLLM({
      responses: [
        { code: "var n = 1; var c = counter(); n" },
        { code: "n += 1; done(n)" },
        { code: "done([typeof n, n, c.count])" },
      ],
      recordInputs: true,
    });
    const cantrip = new Cantrip({
      llm,
      identity: {},
      circle: new Circle({
        medium: codeMedium,
        gates: [doneGate(), counter],
        wards: [{ max_turns: 4 }],
      }),
      loom: new Loom(),
    });
    const cast = await cantrip.cast("go");
    expect(calls).toBe(1);
    // Forked from the cantrip the cast returned: its scripted model goes on after the cast's replies.
    const r = await fork(cast.nextCantrip, cantrip.loom.turns()[0]!.id, { intent: "what is n?" });
    expect(JSON.stringify(llm.invocations[2]!.messages)).toContain("var n = 1;");
    // n as after turn 1 (not 2), c hydrated from the loom, the gate not called again.
    expect(r.result).toEqual(["number", 1, 1]);
    expect(calls).toBe(1);
    expect(cantrip.loom.turns()[2]!.metadata["fork"]).toMatchObject({ strategy: "replay" });
  });

  it("a turn that replays differently fails the fork, naming the turn", async () => {
    const cantrip = new Cantrip({
      llm: new ScriptedLLM({
        responses: [{ code: "var r = Math.random(); r" }, { code: "done(r)" }],
      }),
      identity: {},
      circle: new Circle({ medium: codeMedium, gates: [doneGate()], wards: [{ max_turns: 4 }] }),
      loom: new Loom(),
    });
    await cantrip.cast("go");
    const first = cantrip.loom.turns()[0]!;
    await expect(fork(cantrip, first.id, { intent: "again" })).rejects.toThrow(
      `turn 1 (${first.id}) replays differently`,
    );
  });
});
