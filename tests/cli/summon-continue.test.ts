// `spell summon FILE --continue`: seed 002's re-summoning — the last entity of that spell in that
// loom goes on, its earlier turns in its context — without copying an entity id around.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runSummon } from "../../src/cli/summon.js";
import { readLoomFile } from "../../src/loom/storage-jsonl.js";
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
