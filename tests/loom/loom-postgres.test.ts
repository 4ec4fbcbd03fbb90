/**
 * The engine's write path to PostgreSQL (src/loom/stores/store-queued.ts): a cast's turns are on the
 * store before the cast is done, and a refused write (a late writer, `loom_fenced`) stops the
 * cast before its next LLM call. A real server on loopback (tests/support/postgres.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  Loom,
  ScriptedLLM,
  type LLM,
} from "../../src/index.js";
import { postgresLoomStore } from "../../src/loom/postgres/index.js";
import { QueuedRecordStore } from "../../src/loom/stores/index.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { turn } from "./store-contract.js";
import { needs } from "../support/needs.js";

const server = usePostgres();

const echo = (text: string) => ({ tool_calls: [{ gate: "echo", args: { text } }] });

function cantripOn(loom: Loom, llm: LLM) {
  return new Cantrip({
    llm,
    identity: { systemPrompt: "pg test" },
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 6 }] }),
    loom,
  });
}

/**
 * A loom on `url` whose LLM, before its 2nd query, has another writer (`other`) record its own
 * turn 2 ("taken") on the cast's entity: the cast's own 2nd turn is then a late write.
 */
function takenScene(url: string) {
  const other = postgresLoomStore(url);
  const loom = new Loom(new QueuedRecordStore(postgresLoomStore(url)));
  const seen = { entityId: "", queries: 0 };
  const scripted = new ScriptedLLM({
    responses: [echo("one"), echo("two"), echo("three"), { content: "end" }],
  });
  const llm: LLM = {
    name: scripted.name,
    async query(messages, options) {
      // Before the second turn is recorded, another worker records its own second turn.
      if (++seen.queries === 2)
        await other.append({ type: "turn", ...turn("taken", null, seen.entityId, 2) });
      return scripted.query(messages, options);
    },
  };
  const onEvent = (e: { type: string; entityId?: string }) => {
    if (e.type === "step_start" && e.entityId) seen.entityId = e.entityId;
  };
  const close = async () => {
    await other.close();
    await (loom.store as QueuedRecordStore).close();
  };
  return { other, loom, llm, seen, onEvent, close };
}

needs(noPostgres).describe("a Loom writing to PostgreSQL", () => {
  it("has every turn of a cast on the store when the cast is done", async () => {
    const url = await server().createDatabase();
    const loom = new Loom(new QueuedRecordStore(postgresLoomStore(url)));
    const llm = new ScriptedLLM({ responses: [echo("one"), echo("two"), { content: "end" }] });
    const result = await cantripOn(loom, llm).cast("go");
    expect(result.status).toBe("terminated");
    // Read by another store (another machine) before this loom is closed.
    const reader = postgresLoomStore(url);
    try {
      const [entity] = await reader.listEntities();
      expect(entity?.turns).toBe(3);
      const thread = await reader.readThread(entity!.lastTurnId);
      expect(thread.map((t) => t.sequence)).toEqual([1, 2, 3]);
      expect(thread.map((t) => t.id)).toEqual(loom.turns().map((t) => t.id));
      expect(await reader.identity(thread[0]!.cantrip_id)).toBeDefined();
    } finally {
      await reader.close();
      await (loom.store as QueuedRecordStore).close();
    }
  });

  it("stops the cast with loom_fenced before the next LLM call when another writer took the turn", async () => {
    const s = takenScene(await server().createDatabase());
    try {
      const result = await cantripOn(s.loom, s.llm).cast("go", { onEvent: s.onEvent });
      expect(result.status).toBe("failed");
      expect(result.status === "failed" && result.error).toMatchObject({ code: "loom_fenced" });
      expect(s.seen.queries).toBe(2); // no LLM call after the refused write
      const stored = await s.other.readEntity(s.seen.entityId);
      expect(stored.map((t) => [t.sequence, t.id === "taken"])).toEqual([
        [1, false],
        [2, true],
      ]);
    } finally {
      await s.close();
    }
  });

  it("a fenced cast's failure stays its own: the next cast on the same loom is stored", async () => {
    const s = takenScene(await server().createDatabase());
    try {
      const cantrip = cantripOn(s.loom, s.llm);
      const fenced = await cantrip.cast("go", { onEvent: s.onEvent });
      expect(fenced.status === "failed" && fenced.error).toMatchObject({ code: "loom_fenced" });
      const fencedEntity = s.seen.entityId;
      // A new cast (a new entity) on the same loom and store: its turns are written.
      const next = await cantrip.cast("again", { onEvent: s.onEvent });
      expect(next.status).toBe("terminated");
      expect(s.seen.entityId).not.toBe(fencedEntity);
      const stored = await s.other.readEntity(s.seen.entityId);
      // The cantrip cast again starts its script again (issue 45): four turns, each stored.
      expect(stored.map((t) => t.sequence)).toEqual([1, 2, 3, 4]);
    } finally {
      await s.close();
    }
  });

  it("casts a spell with loom: { url: postgres://… } (and --loom URL) into the database", async () => {
    const url = await server().createDatabase();
    const withPassword = url.replace("postgres@", "postgres:pw-not-logged@");
    const spell = join(mkdtempSync(join(tmpdir(), "pg-spell-")), "s.yaml");
    writeFileSync(
      spell,
      `llm: { provider: scripted, responses: [{ content: "first" }, { content: "second" }] }
identity: { system_prompt: pg }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
loom: { url: "${withPassword}" }
`,
    );
    const fromSpell = await loadSpell(spell);
    expect(fromSpell.cantrip!.loom.store.location).not.toContain("pw-not-logged");
    expect((await fromSpell.cantrip!.cast("go")).status).toBe("terminated");
    await (fromSpell.cantrip!.loom.store as QueuedRecordStore).close();
    const fromFlag = await loadSpell(spell, { loomPath: url });
    expect((await fromFlag.cantrip!.cast("again")).status).toBe("terminated");
    await (fromFlag.cantrip!.loom.store as QueuedRecordStore).close();
    const reader = postgresLoomStore(url);
    try {
      expect((await reader.listEntities()).map((e) => e.turns)).toEqual([1, 1]);
    } finally {
      await reader.close();
    }
  });
});
