// `spell summon FILE --continue`: seed 002's re-summoning — the last entity of that spell in that
// loom goes on, its earlier turns in its context — without copying an entity id around.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runSummon } from "../../src/cli/summon.js";
import { readLoomFile } from "../../src/loom/stores/index.js";
import { loadSpell } from "../../src/spell/index.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "summon-continue-"));
const lines = (...l: string[]) => Readable.from(l.map((x) => `${x}\n`));
const entityIn = (err: string) => /(?:summoned|resumed) entity (ent_[\w-]+)/.exec(err)?.[1];
const spellFile = (name: string) => {
  const p = join(dir, name);
  writeFileSync(
    p,
    `llm: { provider: scripted, responses: [{ content: "${name} says hi" }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
  );
  return p;
};
const session = async (spell: string, flags: Record<string, unknown>, ...input: string[]) => {
  const o = io();
  const code = await runSummon(spell, flags, { ...o, input: lines(...input) });
  return { code, err: o.err, out: o.out, id: entityIn(o.err) };
};

describe("spell summon --continue", () => {
  it("continues the last entity of that spell in that loom; another spell's entity is not it", async () => {
    const a = spellFile("a.yaml");
    const b = spellFile("b.yaml");
    const loom = join(dir, "shared.jsonl");
    const older = await session(a, { loom }, "first of a");
    const newer = await session(a, { loom }, "second entity of a");
    const other = await session(b, { loom }, "b talks");
    expect(new Set([older.id, newer.id, other.id]).size).toBe(3);

    const again = await session(a, { loom, continue: true }, "a again");
    expect(again.code).toBe(EXIT.ok);
    expect(again.id).toBe(newer.id);
    expect(again.err).toMatch(/resumed entity ent_[\w-]+ \(1 earlier turn\)/);
    // The new turn hangs from the entity's earlier one: the re-summoned entity sees its thread.
    const turns = readLoomFile(loom).records.filter(
      (r) => r.type === "turn" && r.entity_id === newer.id,
    );
    expect(turns).toHaveLength(2);
    expect(turns[1]).toMatchObject({ sequence: 2, parent_id: (turns[0] as { id: string }).id });
    expect(again.err).toContain(`resume: spell summon ${a} --continue --loom ${loom}`);
  });

  it("summons a new entity when the loom has none of that spell, and says so", async () => {
    const c = spellFile("c.yaml");
    const r = await session(c, { loom: join(dir, "fresh.jsonl"), continue: true }, "hello");
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toMatch(/no earlier entity of .*c\.yaml in .*fresh\.jsonl: summoned a new one/);
    expect(r.out).toBe("c.yaml says hi\n");
  });

  it("is a usage error with --entity, or with a memory loom (exit 3)", async () => {
    const a = spellFile("d.yaml");
    const both = await session(a, { continue: true, entity: "ent_x", loom: join(dir, "d.jsonl") });
    expect(both.code).toBe(EXIT.invalid);
    expect(both.err).toMatch(/--continue and --entity/);
    const memory = await session(a, { continue: true, loom: "memory" });
    expect(memory.code).toBe(EXIT.invalid);
    expect(memory.err).toMatch(/--continue needs a loom file/);
  });
});

// Seed 002, Loom: "Summon the same cantrip against the same loom path; the previous turns appear
// in `loom.turns` of the next cast." A spell that names its loom (loom.path) continues its entity
// there when the loom holds one of this spell; --new starts a fresh one.
describe("spell summon FILE, the spell naming its loom", () => {
  const namedSpell = (name: string, ...code: string[]) => {
    const p = join(dir, name);
    writeFileSync(
      p,
      `llm: { provider: scripted, responses: ${JSON.stringify(code.map((c) => ({ code: c })))} }
identity: {}
circle: { medium: code, gates: [done, echo], wards: [{ max_turns: 4 }] }
loom: { path: ${name}.jsonl }
`,
    );
    return p;
  };
  const turnsOf = (loom: string, id: string | undefined) =>
    readLoomFile(loom).records.filter((r) => r.type === "turn" && r.entity_id === id);

  it("summoned again, it continues the entity, its earlier turns in loom.turns; the hint is the bare command", async () => {
    const spell = namedSpell("named.yaml", "var colour = echo('blue'); colour", "done(colour)");
    const loom = `${spell}.jsonl`;
    const first = await session(spell, {}, "pick a colour");
    expect(first.code).toBe(EXIT.ok);
    expect(first.out).toBe("blue\n");
    expect(first.err).toContain(`resume: spell summon ${spell}\n`);
    expect(first.err).toContain(
      `session ended · entity ${first.id} · resume: spell summon ${spell}\n`,
    );

    // Another session (another process would do the same: the loom file is the truth).
    namedSpell(
      "named.yaml",
      "done(loom.turns.map((t) => t.sequence + ':' + t.utterance).join(' | '))",
    );
    const second = await session(spell, {}, "what did you do before?");
    expect(second.code).toBe(EXIT.ok);
    expect(second.id).toBe(first.id);
    expect(second.err).toContain(`continuing the entity of ${spell} in its loom ${loom}`);
    expect(second.err).toContain(`resumed entity ${first.id} (2 earlier turns)`);
    expect(second.out).toBe("1:var colour = echo('blue'); colour | 2:done(colour)\n");
    expect(second.err).toContain(`resume: spell summon ${spell}\n`);
    const turns = turnsOf(loom, first.id);
    expect(turns).toHaveLength(3);
    expect(turns[2]).toMatchObject({ sequence: 3, parent_id: (turns[1] as { id: string }).id });
  });

  it("--new starts a fresh entity; with two entities of the spell, a new one and the hint names its id", async () => {
    const spell = namedSpell("fresh.yaml", "done(loom.turns.length)");
    const loom = `${spell}.jsonl`;
    const first = await session(spell, {}, "one");
    expect(first.out).toBe("0\n");
    const fresh = await session(spell, { new: true }, "two");
    expect(fresh.code).toBe(EXIT.ok);
    expect(fresh.id).not.toBe(first.id);
    expect(fresh.out).toBe("0\n"); // a fresh thread: no earlier turn
    expect(fresh.err).toMatch(/summoned entity ent_/);
    // Two entities of the spell now: the bare command would not know which; the hint says.
    expect(fresh.err).toContain(`resume: spell summon ${spell} --entity ${fresh.id}\n`);
    const third = await session(spell, {}, "three");
    expect(third.id).not.toBe(first.id);
    expect(third.id).not.toBe(fresh.id);
    expect(third.err).toMatch(
      /2 entities of .*fresh\.yaml in .*fresh\.yaml\.jsonl: summoned a new one/,
    );
    // The hint given works: --entity continues that entity.
    const back = await session(spell, { entity: fresh.id }, "four");
    expect(back.id).toBe(fresh.id);
    expect(back.out).toBe("1\n");
    expect(turnsOf(loom, fresh.id)).toHaveLength(2);
  });

  it("the spell's entity held by another session: the error says --new summons a fresh one", async () => {
    const spell = namedSpell("held.yaml", "done(loom.turns.length)");
    const first = await session(spell, {}, "one");
    // Another session holds it (here: this process, through the library).
    const cantrip = (await loadSpell(spell)).cantrip!;
    const holder = cantrip.summon({ entity: first.id! });
    await holder.ready();
    try {
      const r = await session(spell, {}, "two");
      expect(r.code).toBe(EXIT.failure);
      expect(r.err).toMatch(/in use by pid \d+.*\(--new summons a fresh entity\)/);
      const fresh = await session(spell, { new: true }, "three");
      expect(fresh.code).toBe(EXIT.ok);
      expect(fresh.id).not.toBe(first.id);
    } finally {
      holder.dispose();
      cantrip.loom.close();
    }
  });

  it("--new with --continue or --entity is a usage error; --loom on the command line keeps a new entity per summon", async () => {
    const spell = namedSpell("flags.yaml", "done(loom.turns.length)");
    for (const flags of [
      { new: true, continue: true },
      { new: true, entity: "ent_x" },
    ]) {
      const r = await session(spell, flags);
      expect(r.code).toBe(EXIT.invalid);
      expect(r.err).toMatch(/--new starts a new entity/);
    }
    const loom = join(dir, "flags-cli.jsonl");
    const a = await session(spell, { loom }, "a");
    const b = await session(spell, { loom }, "b");
    expect(b.id).not.toBe(a.id);
    expect(b.out).toBe("0\n");
  });
});
