import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Circle } from "../../src/circle/circle.js";
import { describe, expect, it } from "vitest";
import { loadSpell } from "../../src/spell/index.js";

function spellDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "compose-spell-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const load = (dir: string) => loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });

describe("call_entity in YAML", () => {
  it("names a whole child spell: its llm, identity and gates serve the child", async () => {
    const dir = spellDir({
      "child.yaml": `
llm: { provider: scripted, name: child-model, responses: [{ tool_calls: [{ gate: echo, args: { text: from the child spell } }] }, { tool_calls: [{ gate: done, args: { answer: child done } }] }] }
identity: { system_prompt: You are the child spell. }
circle: { gates: [done, echo], wards: [{ max_turns: 4 }] }
`,
      "spell.yaml": `
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: call_entity, args: { intent: go } }] }, { tool_calls: [{ gate: done, args: { answer: parent done } }] }] }
identity: { system_prompt: You are the parent. }
circle:
  gates: [done, { call_entity: { spell: ./child.yaml } }]
  wards: [{ max_turns: 3 }]
`,
    });
    const loaded = await load(dir);
    const result = await loaded.cantrip!.cast("delegate");
    const turns = result.loom.turns();
    const child = turns.filter((t) => t.entity_id !== result.entityId);
    expect(child.map((t) => t.gate_calls[0]!.gate_name)).toEqual(["echo", "done"]);
    expect(result.loom.identity(child[0]!.cantrip_id)!.identity).toMatchObject({
      system_prompt: "You are the child spell.",
    });
    expect(turns.find((t) => t.entity_id === result.entityId)!.gate_calls[0]!.result).toBe(
      "child done",
    );
    expect(result.result).toBe("parent done");
  });

  it("names the children's llm and medium, and named llms a proposal may pick", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm:
  provider: scripted
  responses:
    - code: "done([call_entity({ intent: 'default', context: 20 }), call_entity({ intent: 'named', llm: 'fast', medium: 'conversation' })])"
identity: {}
circle:
  medium: code
  gates:
    - done
    - call_entity:
        medium: code
        llm: { provider: scripted, responses: [{ code: "done(context + 1)" }] }
        llms:
          fast: { provider: scripted, name: fast, responses: [{ tool_calls: [{ gate: done, args: { answer: fast answer } }] }] }
  wards: [{ max_turns: 3 }]
`,
    });
    const result = await (await load(dir)).cantrip!.cast("x");
    expect(result.result).toEqual([21, "fast answer"]);
  });

  it("leaves delegation out of a circle whose max_depth is 0 (COMP-6)", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: call_entity, args: { intent: go } }] }, { tool_calls: [{ gate: done, args: { answer: 1 } }] }] }
identity: {}
circle:
  gates: [done, call_entity, call_entity_batch]
  wards: [{ max_turns: 3 }, { max_depth: 0 }]
`,
    });
    const loaded = await load(dir);
    expect([...(loaded.cantrip!.circle as Circle).gates.keys()]).toEqual(["done"]);
    const result = await loaded.cantrip!.cast("x");
    expect(result.loom.turns()[0]!.gate_calls[0]).toMatchObject({
      gate_name: "call_entity",
      is_error: true,
    });
  });

  it("reports a child spell that does not exist when the spell loads (CIRCLE-10)", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm: { provider: scripted }
identity: {}
circle: { gates: [done, { call_entity: { spell: ./missing.yaml } }], wards: [{ max_turns: 3 }] }
`,
    });
    await expect(load(dir)).rejects.toThrow(
      /spell\.yaml:4:\d+: call_entity: child spell \.\/missing\.yaml does not exist/,
    );
  });
});
