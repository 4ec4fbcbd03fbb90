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
  newEntityId,
  ScriptedLLM,
} from "../../src/index.js";
import type { ScriptedResponse } from "../../src/llm/providers/scripted.js";

const tempLoom = () => join(mkdtempSync(join(tmpdir(), "cast-resume-")), "loom.jsonl");
const openLoom = (path: string) => new Loom(new JsonlStore(path), { entityWaitMs: 100 });
const crash: ScriptedResponse = { error: { status: 500, message: "provider went away" } };

function codeCantrip(loom: Loom, responses: ScriptedResponse[], maxTurns = 6) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const circle = new Circle({
    medium: codeMedium,
    gates: [doneGate()],
    wards: [{ max_turns: maxTurns }],
  });
  return { llm, cantrip: new Cantrip({ llm, identity: { systemPrompt: "code" }, circle, loom }) };
}

function echoCantrip(loom: Loom, responses: ScriptedResponse[]) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const circle = new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] });
  return { llm, cantrip: new Cantrip({ llm, identity: { systemPrompt: "echo" }, circle, loom }) };
}

/** The entity's turns as a fresh reader of the file sees them. */
const turnsOf = (path: string, entityId: string) =>
  openLoom(path)
    .turns()
    .filter((t) => t.entity_id === entityId);

describe("cast({ resumeEntity }): continuing an interrupted cast", () => {
  it("continues from the last recorded turn: variables by replay, intent once, next sequence", async () => {
    const path = tempLoom();
    const id = newEntityId();
    const one = codeCantrip(openLoom(path), [{ code: "var n = 41; n" }, crash]);
    const first = await one.cantrip.cast("count up", { resumeEntity: id });
    expect(first.status).toBe("failed");
    expect(first.entityId).toBe(id);
    one.cantrip.loom.close();

    const two = codeCantrip(openLoom(path), [{ code: "done(n + 1)" }]);
    const r = await two.cantrip.cast("count up", { resumeEntity: id });
    expect(r.status).toBe("terminated");
    expect(r.result).toBe(42);
    expect(r.entityId).toBe(id);
    expect(r.turns).toBe(2); // the whole cast's turns, the recorded one included
    const sent = two.llm.invocations[0]!.messages;
    expect(sent.filter((m) => m.role === "user" && m.content === "count up")).toHaveLength(1);
    const turns = turnsOf(path, id);
    expect(turns.map((t) => t.sequence)).toEqual([1, 2]);
    expect(turns.map((t) => t.metadata["intent"])).toEqual(["count up", undefined]);
    expect(turns[1]!.parent_id).toBe(turns[0]!.id);
  });

  it("an entity with no turns yet starts fresh under that id (idempotent start)", async () => {
    const path = tempLoom();
    const id = newEntityId();
    const { cantrip, llm } = echoCantrip(openLoom(path), [{ content: "hello" }]);
    const r = await cantrip.cast("greet", { resumeEntity: id });
    expect(r.status).toBe("terminated");
    expect(r.entityId).toBe(id);
    expect(llm.invocations[0]!.messages.at(-1)).toEqual({ role: "user", content: "greet" });
    expect(turnsOf(path, id).map((t) => t.metadata["intent"])).toEqual(["greet"]);
  });

  it("a cast that ended gives back its recorded result, with no LLM call and no new turn", async () => {
    const path = tempLoom();
    const id = newEntityId();
    const one = echoCantrip(openLoom(path), [
      { tool_calls: [{ gate: "echo", args: { text: "a" } }] },
      { tool_calls: [{ gate: "done", args: { answer: "finished" } }] },
    ]);
    expect((await one.cantrip.cast("work", { resumeEntity: id })).result).toBe("finished");
    one.cantrip.loom.close();

    const two = echoCantrip(openLoom(path), [{ content: "must not be asked" }]);
    const r = await two.cantrip.cast("work", { resumeEntity: id });
    expect(two.llm.invocations).toHaveLength(0);
    expect(r.status).toBe("terminated");
    expect(r.reason).toBe("done");
    expect(r.result).toBe("finished");
    expect(r.turns).toBe(2);
    expect(turnsOf(path, id)).toHaveLength(2);
  });

  it("a cast truncated by a ward stays ended: the recorded truncation comes back", async () => {
    const path = tempLoom();
    const id = newEntityId();
    const echo = { tool_calls: [{ gate: "echo", args: { text: "x" } }] };
    const one = codeCantrip(openLoom(path), [{ code: "1" }, { code: "2" }], 2);
    expect((await one.cantrip.cast("loop", { resumeEntity: id })).reason).toBe("max_turns");
    one.cantrip.loom.close();
    const two = echoCantrip(openLoom(path), [echo]);
    const r = await two.cantrip.cast("loop", { resumeEntity: id });
    expect(two.llm.invocations).toHaveLength(0);
    expect(r.status).toBe("truncated");
    expect(r.reason).toBe("max_turns");
  });

  it("an interrupted cast (Ctrl-C) is not ended: it continues, and the wards count its earlier turns", async () => {
    const path = tempLoom();
    const id = newEntityId();
    const stop = new AbortController();
    const one = codeCantrip(openLoom(path), [{ code: "var k = 'kept'; k" }, { code: "2" }], 3);
    const onEvent = (e: { type: string }) => {
      if (e.type === "step_complete") stop.abort("interrupted"); // after the first recorded turn
    };
    const first = await one.cantrip.cast("go", { resumeEntity: id, signal: stop.signal, onEvent });
    expect(first.reason).toBe("interrupted");
    one.cantrip.loom.close();

    const two = codeCantrip(openLoom(path), [{ code: "k + 1" }, { code: "done(k)" }], 3);
    const r = await two.cantrip.cast("go", { resumeEntity: id });
    // Turn 1 ran, turn 2 was the interruption: one more turn reaches max_turns 3.
    expect(r.reason).toBe("max_turns");
    expect(r.turns).toBe(3);
    expect(two.llm.invocations).toHaveLength(1);
    const turns = turnsOf(path, id);
    expect(turns.map((t) => t.sequence)).toEqual([1, 2, 3]);
    expect(turns[2]!.observation).toContain("kept1");
  });
});
