import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  codeMedium,
  doneGate,
  echoGate,
  foldingView,
  fork,
  JsonlStore,
  Loom,
  ScriptedLLM,
  type Gate,
} from "../../src/index.js";
import { entityFiles, readState } from "../../src/loom/entities/index.js";
import type { ScriptedResponse } from "../../src/llm/providers/scripted.js";

const tempLoom = () => join(mkdtempSync(join(tmpdir(), "summon-")), "loom.jsonl");
const openLoom = (path: string, entityWaitMs = 100) =>
  new Loom(new JsonlStore(path), { entityWaitMs });
const echo = (text: string): ScriptedResponse => ({
  tool_calls: [{ gate: "echo", args: { text } }],
});

function echoCantrip(loom: Loom, responses: ScriptedResponse[]) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const cantrip = new Cantrip({
    llm,
    identity: { systemPrompt: "durable" },
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] }),
    loom,
    name: "echoer",
    source: "spells/echo.yaml",
  });
  return { llm, cantrip };
}

function codeCantrip(loom: Loom, responses: ScriptedResponse[], gates: Gate[] = []) {
  const llm = new ScriptedLLM({ responses, recordInputs: true });
  const cantrip = new Cantrip({
    llm,
    identity: { systemPrompt: "code" },
    circle: new Circle({
      medium: codeMedium,
      gates: [doneGate(), ...gates],
      wards: [{ max_turns: 6 }],
    }),
    loom,
  });
  return { llm, cantrip };
}

const state = (path: string) => readState(path);

describe("durable summon (ENTITY-5 across processes)", () => {
  it("a new loom on the same file continues the entity: earlier turns in the context", async () => {
    const path = tempLoom();
    const one = echoCantrip(openLoom(path), [echo("remember me"), { content: "noted" }]);
    const entity = one.cantrip.summon();
    expect((await entity.send("first")).result).toBe("noted");
    entity.dispose();
    one.cantrip.loom.close();

    const two = echoCantrip(openLoom(path), [{ content: "I remember" }]);
    const again = two.cantrip.summon({ entity: entity.id });
    expect(again.id).toBe(entity.id);
    const r = await again.send("second");
    expect(r.result).toBe("I remember");
    const sent = two.llm.invocations[0]!.messages;
    expect(sent.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(JSON.stringify(sent)).toContain("remember me");
    expect(sent[1]!.content).toBe("first");
    expect(sent.at(-1)!.content).toBe("second");
    again.dispose();
    two.cantrip.loom.close();

    // One thread: the resumed turn hangs from the last one, the sequence goes on.
    const loom = openLoom(path);
    const turns = loom.turns();
    expect(turns.map((t) => t.entity_id)).toEqual([entity.id, entity.id, entity.id]);
    expect(turns[2]!.parent_id).toBe(turns[1]!.id);
    expect(turns[2]!.sequence).toBe(3);
    expect(loom.thread(turns[2]!.id)).toHaveLength(3);
  });

  it("the state file beside the loom lists the entity, its spell and its last turn", async () => {
    const path = tempLoom();
    const { cantrip } = echoCantrip(openLoom(path), [{ content: "a" }, { content: "b" }]);
    const entity = cantrip.summon();
    await entity.send("one");
    await entity.send("two");
    entity.dispose();
    const entry = state(path).entities[entity.id]!;
    expect(entry).toMatchObject({ cantrip: "echoer", spell: "spells/echo.yaml", sends: 2 });
    expect(entry.last_turn_id).toBe(cantrip.loom.lastTurnOf(entity.id)!.id);
    expect(existsSync(join(entityFiles(path).locks, `${entity.id}.lock`))).toBe(false);
  });

  it("a cast registers nothing (it is not kept)", async () => {
    const path = tempLoom();
    const { cantrip } = echoCantrip(openLoom(path), [{ content: "a" }]);
    await cantrip.cast("one");
    expect(existsSync(entityFiles(path).state)).toBe(false);
  });

  it("the code medium gets its variables back by replay, gates answered from the loom", async () => {
    const path = tempLoom();
    let calls = 0;
    const counter: Gate = {
      name: "counter",
      description: "counts its real calls",
      parameters: { type: "object", properties: {} },
      execute: () => ({ count: ++calls }),
    };
    const one = codeCantrip(
      openLoom(path),
      [{ code: "var n = 41; var c = counter(); n" }, { code: "n += 1; done(n)" }],
      [counter],
    );
    const entity = one.cantrip.summon();
    expect((await entity.send("set n")).result).toBe(42);
    entity.dispose();
    one.cantrip.loom.close();
    expect(calls).toBe(1);

    const two = codeCantrip(openLoom(path), [{ code: "done([n, c.count])" }], [counter]);
    const again = two.cantrip.summon({ entity: entity.id });
    expect((await again.send("what is n?")).result).toEqual([42, 1]);
    expect(calls).toBe(1);
    again.dispose();
  });

  it("two summons are independent; the same entity twice waits, then is in use", async () => {
    const path = tempLoom();
    const { cantrip } = echoCantrip(openLoom(path), [{ content: "a" }, { content: "b" }]);
    const a = cantrip.summon();
    const b = cantrip.summon();
    expect(a.id).not.toBe(b.id);
    await a.send("to a");
    await b.send("to b");
    const turns = cantrip.loom.turns();
    expect(turns[1]!.parent_id).toBeNull(); // b's thread does not hang from a's
    const same = cantrip.summon({ entity: a.id });
    await expect(same.ready()).rejects.toThrow(
      new RegExp(`entity ${a.id} of loom .* is in use by pid ${process.pid} \\(this process\\)`),
    );
    a.dispose();
    await same.ready(); // released: the next summon may continue it
    same.dispose();
    b.dispose();
  });

  it("an entity the loom never saw cannot be resumed; a bad id is refused", async () => {
    const path = tempLoom();
    const { cantrip } = echoCantrip(openLoom(path), [{ content: "a" }]);
    await expect(cantrip.summon({ entity: "ent_nobody" }).send("hi")).rejects.toThrow(
      /no entity ent_nobody in loom/,
    );
    await expect(cantrip.summon({ entity: "../../etc/passwd" }).ready()).rejects.toThrow(
      /not an entity id/,
    );
  });

  it("a memory loom keeps the same rules within the process", async () => {
    const { cantrip } = echoCantrip(new Loom(), [{ content: "a" }, { content: "b" }]);
    const a = cantrip.summon();
    await a.send("one");
    await expect(cantrip.summon({ entity: a.id }).ready()).rejects.toThrow(/in use by pid/);
    a.dispose();
    const again = cantrip.summon({ entity: a.id });
    await again.send("two");
    expect(cantrip.loom.thread(cantrip.loom.lastTurnOf(a.id)!.id)).toHaveLength(2);
    await expect(cantrip.summon({ entity: "ent_nobody" }).ready()).rejects.toThrow(
      /no entity ent_nobody in loom memory/,
    );
  });

  it("a resumed entity whose code replays differently fails, naming the turn", async () => {
    const path = tempLoom();
    const one = codeCantrip(openLoom(path), [
      { code: "var r = Math.random(); r" },
      { code: "done(1)" },
    ]);
    const entity = one.cantrip.summon();
    await entity.send("go");
    entity.dispose();
    const two = codeCantrip(openLoom(path), [{ code: "done(r)" }]);
    const first = two.cantrip.loom.turns()[0]!;
    await expect(two.cantrip.summon({ entity: entity.id }).send("again")).rejects.toThrow(
      `cannot resume ${entity.id}: turn 1 (${first.id}) replays differently`,
    );
  });
});

describe("JsonlStore fsync", () => {
  it("with fsync: true every record is written the same and read back", async () => {
    const path = tempLoom();
    const loom = new Loom(new JsonlStore(path, { fsync: true }));
    const { cantrip } = echoCantrip(loom, [echo("a"), { content: "b" }]);
    await cantrip.cast("go");
    loom.close();
    expect(
      openLoom(path)
        .turns()
        .map((t) => t.sequence),
    ).toEqual([1, 2]);
  });

  it("a folding view folds the turns recorded before the resume too (and before a fork)", async () => {
    const path = tempLoom();
    const folding = () => foldingView({ triggerAfterTurns: 2, keepRecentTurns: 1 });
    const make = (responses: ScriptedResponse[]) => {
      const llm = new ScriptedLLM({ responses, recordInputs: true });
      const cantrip = new Cantrip({
        llm,
        identity: { systemPrompt: "folds" },
        circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] }),
        loom: openLoom(path),
        view: folding(),
      });
      return { llm, cantrip };
    };
    // Two turns in the first process: no fold yet (2 turns shown, the trigger is "more than 2").
    const one = make([echo("alpha-1"), { content: "first done" }]);
    const entity = one.cantrip.summon();
    await entity.send("first");
    entity.dispose();
    one.cantrip.loom.close();
    expect(JSON.stringify(one.llm.invocations)).not.toContain("[Folded:");

    // Resumed: its two recorded turns and the new one make three; the oldest fold away.
    const two = make([echo("beta-1"), { content: "second done" }]);
    const again = two.cantrip.summon({ entity: entity.id });
    await again.send("second");
    again.dispose();
    const sent = JSON.stringify(two.llm.invocations.at(-1)!.messages);
    expect(sent).toContain("[Folded: turns 1");
    expect(sent).not.toContain('"alpha-1"'); // the folded echo's arguments are gone from the view
    expect(two.cantrip.loom.folds(entity.id).length).toBeGreaterThan(0);
    expect(two.cantrip.loom.thread(two.cantrip.loom.lastTurnOf(entity.id)!.id)).toHaveLength(4);

    // A fork from the last turn starts with those four turns behind it: they fold as well.
    const three = make([{ content: "forked" }]);
    const last = three.cantrip.loom.lastTurnOf(entity.id)!.id;
    await fork(three.cantrip, last, { intent: "third" });
    expect(JSON.stringify(three.llm.invocations[0]!.messages)).toContain("[Folded: turns 1");
    three.cantrip.loom.close();
  });
});
