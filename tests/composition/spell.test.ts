import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
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

  it("a code child spell keeps its own circle.state when the proposal hands it a context", async () => {
    const dir = spellDir({
      "child.yaml": `
llm: { provider: scripted, responses: [{ code: "done(greeting + ' ' + context.name)" }] }
identity: {}
circle: { medium: code, state: { greeting: hello }, gates: [done], wards: [{ max_turns: 2 }] }
`,
      "spell.yaml": `
llm: { provider: scripted, responses: [{ code: "done(call_entity({ intent: 'greet', context: { name: 'Ada' } }))" }] }
identity: {}
circle:
  medium: code
  gates: [done, { call_entity: { spell: ./child.yaml } }]
  wards: [{ max_turns: 2 }]
`,
    });
    const result = await (await load(dir)).cantrip!.cast("delegate");
    expect(result.result).toBe("hello Ada");
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

  it("offers children gates the parent lacks, configured in the spell: roots against the spell (COMP-1)", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: call_entity, args: { intent: read it, gates: [read] } }] }, { tool_calls: [{ gate: done, args: { answer: parent done } }] }] }
identity: {}
circle:
  gates:
    - done
    - call_entity:
        llm: { provider: scripted, responses: [{ tool_calls: [{ gate: read, args: { path: note.txt } }] }, { tool_calls: [{ gate: done, args: { answer: read } }] }] }
        gates: [{ read: { root: docs } }]
  wards: [{ max_turns: 3 }]
`,
    });
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs", "note.txt"), "from the docs folder");
    const loaded = await load(dir);
    expect([...(loaded.cantrip!.circle as Circle).gates.keys()]).toEqual(["done", "call_entity"]);
    const result = await loaded.cantrip!.cast("x");
    const child = result.loom.turns().filter((t) => t.entity_id !== result.entityId);
    expect(child[0]!.gate_calls[0]).toMatchObject({
      gate_name: "read",
      result: "from the docs folder",
      is_error: false,
    });
  });

  it.each([
    ["with a schema error beside them", "[conversation, fortran]"],
    ["when the schema is satisfied", "[conversation]"],
  ])("reports every bad offered gate at its own line, %s", async (_, allowlist) => {
    const dir = spellDir({
      "spell.yaml": `llm: { provider: scripted }
identity: {}
circle:
  gates:
    - done
    - call_entity:
        gates:
          - reed
          - call_entity
          - { read: { rooot: x } }
  wards: [{ max_turns: 3 }, { child_medium_allowlist: ${allowlist} }]
`,
    });
    const error = await load(dir).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const text = String(error?.message);
    if (allowlist.includes("fortran"))
      expect(text).toMatch(/spell\.yaml:11:\d+: .*unknown medium "fortran"/);
    expect(text).toMatch(/spell\.yaml:8:\d+: unknown gate "reed"/);
    expect(text).toMatch(
      /spell\.yaml:9:\d+: call_entity: gates cannot offer call_entity: a child may delegate while its max_depth allows/,
    );
    expect(text).toMatch(/spell\.yaml:10:\d+: gate read takes no dependency "rooot"/);
  });

  it("validates child_medium_allowlist against the mediums and refuses other children at run time", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: call_entity, args: { intent: x, medium: code } }] }, { tool_calls: [{ gate: done, args: { answer: refused } }] }] }
identity: {}
circle:
  gates: [done, call_entity]
  wards: [{ max_turns: 3 }, { child_medium_allowlist: [conversation] }]
`,
    });
    const result = await (await load(dir)).cantrip!.cast("x");
    expect(result.loom.turns()[0]!.gate_calls[0]).toMatchObject({ is_error: true });
    expect(result.loom.turns()[0]!.gate_calls[0]!.result).toMatch(/child_medium_not_allowed/);
    expect(result.loom.turns()).toHaveLength(2);
  });

  it("warns at load when the children's default medium is one child_medium_allowlist refuses", async () => {
    const spell = (gate: string, medium = "conversation") =>
      spellDir({
        "child.yaml": `llm: { provider: scripted }\nidentity: {}\ncircle: { medium: code, gates: [done], wards: [{ max_turns: 2 }] }\n`,
        "spell.yaml": `llm: { provider: scripted }
identity: {}
circle:
  medium: ${medium}
  gates:
    - done
    - ${gate}
  wards: [{ max_turns: 3 }, { child_medium_allowlist: [conversation, bash] }, { child_medium_allowlist: [conversation] }]
`,
      });
    const warnings = async (dir: string) =>
      (await load(dir)).warnings.map((w) => `${w.position.line}: ${w.message}`);
    expect(await warnings(spell("call_entity: { medium: code }"))).toEqual([
      "7: call_entity: { medium: code }: children get the code medium, which child_medium_allowlist [conversation] refuses; a child whose proposal names no allowed medium will be refused",
    ]);
    expect(await warnings(spell("call_entity: { spell: ./child.yaml }"))).toEqual([
      expect.stringMatching(/^7: call_entity's child spell: children get the code medium/),
    ]);
    expect(await warnings(spell("call_entity", "code"))).toEqual([
      expect.stringMatching(
        /^8: this circle's medium \(children inherit it\): children get the code medium/,
      ),
    ]);
    expect(await warnings(spell("call_entity"))).toEqual([]);
    expect(await warnings(spell("call_entity: { medium: conversation }", "code"))).toEqual([]);
  });
});
