import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpellText } from "../../src/spell/index.js";

// What the loader's YAML reading must keep whatever parses it (bench/loader.bench.mjs times it):
// positions deep in a document, duplicate keys deep inside, anchors and aliases, YAML 1.2
// scalars, and a file holding more than one document.

const HEAD = `llm: scripted
identity: {}
circle: { gates: [done], wards: [{ max_turns: 1 }] }
intent: go
`;

const load = (text: string) =>
  loadSpellText(text, "spell.yaml", { env: {}, loomPath: "memory", validateOnly: true });

async function errorsOf(text: string): Promise<{ code: string; text: string }[]> {
  try {
    await load(text);
  } catch (err) {
    expect(err).toBeInstanceOf(SpellErrors);
    return (err as SpellErrors).errors.map((e) => ({ code: e.code, text: e.format() }));
  }
  throw new Error("expected the spell to be invalid");
}

/** 40 test cases of two lines each: lines 6 to 85 of a document that starts with HEAD + tests:. */
const forty = Array.from(
  { length: 40 },
  (_, i) => `  - name: t${i}\n    action: { cast: { intent: go } }\n`,
).join("");

describe("YAML positions and semantics the loader keeps", () => {
  it("points at a key deep inside the 41st item of a block list", async () => {
    const errors = await errorsOf(`${HEAD}tests:
${forty}  - name: bad
    action: { cast: { intent: go } }
    setup:
      llm:
        responses:
          - content: a
            gravity: 1
`);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toMatch(
      /^spell\.yaml:92:13: tests\.40\.setup\.llm\.responses\.0\.gravity: unknown key/,
    );
  });

  it("refuses a duplicate key deep inside, at the second key, naming the first's line", async () => {
    const errors = await errorsOf(`${HEAD}tests:
${forty}  - name: dup
    action: { cast: { intent: go } }
    setup:
      llm:
        responses:
          - content: a
            tool_calls: []
            content: b
`);
    expect(errors).toEqual([
      {
        code: "yaml_duplicate_key",
        text: 'spell.yaml:93:13: duplicate key "content" (first written at line 91): map keys must be unique',
      },
    ]);
  });

  it("expands an alias to its anchor's value, each error at where it is written", async () => {
    const errors = await errorsOf(`${HEAD}tests:
  - name: a
    action: { cast: { intent: go } }
    setup: &shared
      gravity: 1
  - name: b
    action: { cast: { intent: go } }
    setup: *shared
`);
    expect(errors.map((e) => e.text.replace(/ \(allowed.*$/, ""))).toEqual([
      "spell.yaml:9:7: tests.0.setup.gravity: unknown key",
      "spell.yaml:12:12: tests.1.setup.gravity: unknown key",
    ]);
    const loaded = await load(
      `${HEAD}identity: &who { system_prompt: hello }
tests:
  - name: a
    action: { cast: { intent: go } }
    setup: { identity: *who }
`.replace("identity: {}\n", ""),
    );
    expect(loaded.spell.tests?.[0]?.setup?.identity).toEqual({ system_prompt: "hello" });
  });

  it("reads scalars as YAML 1.2 does (yes and on are strings, 017 is decimal, no << merge)", async () => {
    const loaded = await load(`${HEAD}output_schema:
  type: object
  examples: [yes, on, 017, 0o17, 0x1F, 1_000, ~, Null, .inf, -.INF, .nan, 1e3, TRUE, "2001-12-14", 2001-12-14, { <<: { a: 1 }, b: 2 }]
`);
    expect(loaded.spell.output_schema?.["examples"]).toEqual([
      "yes",
      "on",
      17,
      15,
      31,
      "1_000",
      null,
      null,
      Infinity,
      -Infinity,
      NaN,
      1000,
      true,
      "2001-12-14",
      "2001-12-14",
      { "<<": { a: 1 }, b: 2 },
    ]);
  });

  it("refuses a second document in spell terms, at its --- line", async () => {
    const errors = await errorsOf(`${HEAD}---\nintent: again\n`);
    expect(errors.map((e) => e.code)).toEqual(["yaml_syntax"]);
    expect(errors[0]!.text).toMatch(
      /^spell\.yaml:5:1: a second YAML document starts here .*one document/,
    );
    expect(errors[0]!.text).not.toMatch(/parseAllDocuments/);
  });
});

describe("a flow list or mapping left open", () => {
  it("names the [ never closed, where it was opened, not the next line the parser choked on", async () => {
    const errors = await errorsOf(
      "llm: scripted\nidentity:\n  system_prompt: see [1 and {2\ncircle:\n  gates: [done\n  wards: [{ max_turns: 1 }]\nintent: go\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toBe(
      'spell.yaml:5:10: the [ opened on line 5 (gates: [done) is never closed: end the list with ], or write it as a block list, one "- item" a line',
    );
  });

  it("names the { of a list item never closed, past closed ones inside it and a block scalar's brackets", async () => {
    const errors = await errorsOf(
      "llm: scripted\nidentity:\n  system_prompt: |\n    use [brackets {freely\ncircle:\n  gates: [done]\n  wards:\n    - { max_turns: 1, x: { y: 1 }\n    - timeout_ms: 5\nintent: go\n",
    );
    expect(errors[0]!.text).toMatch(
      /^spell\.yaml:8:7: the \{ opened on line 8 \(- \{ max_turns: 1, x: \{ y: 1 \}\) is never closed: end the mapping with \}$/,
    );
  });
});
