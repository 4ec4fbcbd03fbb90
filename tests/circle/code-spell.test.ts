import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";

function spellDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "code-spell-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("code medium from YAML", () => {
  it("loads medium: code, circle.state with $file, and the medium's wards", async () => {
    const dir = spellDir({
      "rows.json": JSON.stringify([{ v: 1 }, { v: 2 }, { v: 3 }]),
      "spell.yaml": `
llm:
  provider: scripted
  responses:
    - code: "var total = rows.reduce((s, r) => s + r.v, 0); total"
    - code: "done({ total, title })"
identity: { system_prompt: You count. }
circle:
  medium: code
  state:
    rows: { $file: rows.json }
    title: inline value
  gates: [done]
  wards:
    - max_turns: 4
    - max_eval_ms: 500
    - max_memory_mb: 32
    - max_stack_kb: 128
`,
    });
    const loaded = await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("sum the rows");
    expect(result.result).toEqual({ total: 6, title: "inline value" });
    expect(loaded.cantrip!.circle.wards).toMatchObject({
      max_eval_ms: 500,
      max_memory_mb: 32,
      max_stack_kb: 128,
    });
  });

  it("refuses circle.state outside the code medium, at the state's position", async () => {
    const dir = spellDir({
      "spell.yaml": `llm: { provider: scripted }
identity: {}
circle:
  state: { a: 1 }
  gates: [done]
  wards: [{ max_turns: 2 }]
`,
    });
    await expect(loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" })).rejects.toThrow(
      /spell\.yaml:4:\d+: circle\.state needs the code medium/,
    );
  });

  it("reports a missing state file", async () => {
    const dir = spellDir({
      "spell.yaml": `llm: { provider: scripted }
identity: {}
circle:
  medium: code
  state: { a: { $file: nowhere.json } }
  gates: [done]
  wards: [{ max_turns: 2 }]
`,
    });
    await expect(loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" })).rejects.toThrow(
      /cannot read nowhere\.json/,
    );
  });
});
