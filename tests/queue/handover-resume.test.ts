// The hand-over's read side: a worker's loom over PostgreSQL continues an entity that another
// process (a worker since killed) recorded there — from its last turn, never from scratch.
import { expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  Loom,
  newEntityId,
  ScriptedLLM,
} from "../../src/index.js";
import { Redactor } from "../../src/core/redact.js";
import type { ScriptedResponse } from "../../src/llm/providers/scripted.js";
import { QueuedRecordStore } from "../../src/loom/stores/index.js";
import { postgresLoomStore } from "../../src/loom/postgres/index.js";
import { openWorkerLoom } from "../../src/queue/loom.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { needs } from "../support/needs.js";

const server = usePostgres();

const echo: ScriptedResponse = { tool_calls: [{ gate: "echo", args: { text: "hi" } }] };
const crash: ScriptedResponse = { error: { status: 500, message: "provider went away" } };

function echoCantrip(loom: Loom, responses: ScriptedResponse[]) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const circle = new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] });
  return { llm, cantrip: new Cantrip({ llm, identity: { systemPrompt: "echo" }, circle, loom }) };
}

needs(noPostgres).describe("a worker's PostgreSQL loom continues another's entity", () => {
  it("reads the entity's turns back and casts on from its last one", async () => {
    const url = await server().createDatabase();
    const id = newEntityId();
    // The first worker: one turn recorded, then it is gone (here: its provider fails).
    const first = new QueuedRecordStore(postgresLoomStore(url));
    const one = echoCantrip(new Loom(first), [echo, crash]);
    expect((await one.cantrip.cast("say hi", { resumeEntity: id })).status).toBe("failed");
    await first.close();

    // The second worker: its own loom over the same database, opened before the job came.
    const w = await openWorkerLoom(url, new Redactor(), {});
    await w.prepare(id);
    const two = echoCantrip(w.loom, [
      echo,
      { tool_calls: [{ gate: "done", args: { answer: "ok" } }] },
    ]);
    const r = await two.cantrip.cast("say hi", { resumeEntity: id });
    await w.close();
    expect(r.status).toBe("terminated");
    expect(r.turns).toBe(3);
    const sent = two.llm.invocations[0]!.messages;
    expect(sent.filter((m) => m.role === "user" && m.content === "say hi")).toHaveLength(1);
    expect(sent.filter((m) => m.role === "tool")).toHaveLength(1); // turn 1's echo came back

    const store = postgresLoomStore(url);
    const turns = await store.readEntity(id);
    await store.close();
    expect(turns.map((t) => t.sequence)).toEqual([1, 2, 3]);
    expect(turns.map((t) => t.metadata["intent"])).toEqual(["say hi", undefined, undefined]);
    expect(turns[1]!.parent_id).toBe(turns[0]!.id);
  });
});
