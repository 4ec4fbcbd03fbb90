import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";

// LoadOptions.baseDir: a packaged spell working on another folder (spell familiar DIR).
const home = mkdtempSync(join(tmpdir(), "base-dir-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
mkdirSync(join(home, "spells"));
mkdirSync(join(home, "work"));
writeFileSync(join(home, "work", "only-here.txt"), "x");
const spell = join(home, "spells", "look.yaml");
writeFileSync(
  spell,
  `llm: { provider: scripted, responses: [{ code: 'done(list_dir("."))' }] }
identity: { system_prompt: look }
circle: { medium: code, gates: [done, { list_dir: { root: . } }], wards: [{ max_turns: 2 }] }
loom: { path: .spellbook/look.jsonl }
`,
);

describe("LoadOptions.baseDir", () => {
  it("roots the gates and the loom in the given folder, not the spell's", async () => {
    const loaded = await loadSpell(spell, { baseDir: join(home, "work") });
    const result = await loaded.cantrip!.cast("what is here?");
    // The loom's folder is there too: it was made in the workspace before the first turn.
    expect(result.result).toEqual([".spellbook/", "only-here.txt"]);
    expect(loaded.cantrip!.loom.store.location).toBe(
      join(home, "work", ".spellbook", "look.jsonl"),
    );
    loaded.cantrip!.loom.close();
  });

  it("without it, the spell's own folder", async () => {
    const loaded = await loadSpell(spell, { loomPath: "memory" });
    expect((await loaded.cantrip!.cast("what is here?")).result).toEqual(["look.yaml"]);
  });
});
