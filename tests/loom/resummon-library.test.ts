import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpell } from "../../src/index.js";

// Seed 002, Loom: "Summon the same cantrip against the same loom path; the previous turns appear
// in `loom.turns` of the next cast." The library's decision (docs/design/SEED-002.md): a
// summon names the entity it continues (`summon({ entity })`); `summon()` is always a new one, so
// a server or an eval summoning many entities on one loom never mixes their threads. The CLI's
// `spell summon FILE` picks the spell's only entity by itself (tests/cli/summon-continue.test.ts).
const dir = mkdtempSync(join(tmpdir(), "resummon-lib-"));
const spell = join(dir, "s.yaml");
const write = (...code: string[]) =>
  writeFileSync(
    spell,
    `llm: { provider: scripted, responses: ${JSON.stringify(code.map((c) => ({ code: c })))} }
identity: {}
circle: { medium: code, gates: [done, echo], wards: [{ max_turns: 4 }] }
loom: { path: s.jsonl }
`,
  );

describe("the library: the same cantrip, summoned again against the same loom path", () => {
  it("summon({ entity }) of a cantrip loaded anew sees the previous turns in loom.turns; summon() is new", async () => {
    write("var colour = echo('blue'); colour", "done(colour)");
    const one = (await loadSpell(spell)).cantrip!;
    const first = one.summon();
    expect((await first.send("pick a colour")).result).toBe("blue");
    first.dispose();
    one.loom.close();

    // As another process: the spell loaded again, the same loom path.
    const seen = "done(loom.turns.map((t) => t.sequence).join(','))";
    write(seen);
    const two = (await loadSpell(spell)).cantrip!;
    const again = two.summon({ entity: first.id });
    expect((await again.send("what did you do before?")).result).toBe("1,2");
    again.dispose();
    two.loom.close();

    write(seen);
    const three = (await loadSpell(spell)).cantrip!;
    const fresh = three.summon();
    expect(fresh.id).not.toBe(first.id);
    expect((await fresh.send("and you?")).result).toBe(""); // a new thread: no earlier turn
    fresh.dispose();
    three.loom.close();
  });
});
