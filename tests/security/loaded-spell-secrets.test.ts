import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { loadSpellText, type LoadedSpell } from "../../src/spell/index.js";
import { expectNoSecret } from "../support/secret-decodings.js";

// Issue 38: loadSpell() returned a value whose `document`, `spell` and `source` held the API key
// expanded from `${env:…}`; console.log of it printed the key. It prints as a Cantrip does now.
const KEY = "sk-live-0123456789abcdefghij";
const OTHER = 'vault "pass"/é 9f3k'; // a secret of another field (the system prompt)

const load = (): Promise<LoadedSpell> =>
  loadSpellText(
    `name: keyed
llm: { provider: openai, model: m, api_key: '\${env:MY_KEY}' }
identity: { system_prompt: 'The vault password is \${env:OTHER}.' }
circle: { gates: [done], wards: [{ max_turns: 1 }] }
intent: 'open with \${env:OTHER}'
tests: [{ name: t, action: { cast: { intent: go } }, expect: { result: '\${env:OTHER}' } }]
`,
    "keyed.yaml",
    { env: { MY_KEY: KEY, OTHER }, loomPath: "memory" },
  );

const clean = (text: string, where: string) => {
  expectNoSecret(text, KEY, where);
  expectNoSecret(text, OTHER, where);
};

/** Every string reached by walking `Object.values` (and Map/Set entries) from `value`. */
function walk(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === "string") return [value];
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return [];
  if (seen.has(value)) return [];
  seen.add(value);
  const children: unknown[] = Object.values(value);
  if (value instanceof Map) children.push(...value.keys(), ...value.values());
  if (value instanceof Set) children.push(...value.values());
  if (value instanceof RegExp) children.push(value.source);
  return children.flatMap((c) => walk(c, seen));
}

describe("a loaded spell prints no secret (PROD-8)", () => {
  it("util.inspect / console.log at any depth, nested or not", async () => {
    const loaded = await load();
    for (const depth of [0, 1, 2, 3, 5, 10, Infinity, null]) {
      clean(inspect(loaded, { depth }), `inspect depth ${depth}`);
      clean(inspect({ a: { b: [loaded] } }, { depth }), `nested, depth ${depth}`);
      clean(inspect(loaded, { depth, colors: true, showHidden: true }), `showHidden ${depth}`);
    }
    // It prints what it is, redacted: not an empty shell.
    expect(inspect(loaded, { depth: Infinity })).toContain("api_key: '[REDACTED]'");
  });

  it("JSON.stringify, String() and a template string", async () => {
    const loaded = await load();
    const json = JSON.stringify(loaded);
    clean(json, "JSON.stringify");
    expect(JSON.parse(json)).toMatchObject({ document: { llm: { api_key: "[REDACTED]" } } });
    clean(JSON.stringify({ loaded }), "JSON.stringify nested");
    clean(String(loaded), "String()");
    clean(`${String(loaded)}`, "template");
  });

  it("walking Object.values (and Map, Set, RegExp) from it reaches no secret", async () => {
    const loaded = await load();
    const strings = walk(loaded);
    expect(strings).toContain("keyed.yaml"); // the walk did go in
    // The API key: nowhere, the compiled cantrip included (its LLM keeps it in ES private fields).
    expectNoSecret(strings.join("\n"), KEY, "Object.values walk");
    // Other values: not in the loaded value's own data. (The cantrip's identity holds its system
    // prompt as the loop sends it: a Cantrip prints redacted, but its fields are its fields.)
    const { value: _value, cantrip: _cantrip, ...data } = loaded;
    clean(walk(data).join("\n"), "Object.values walk of the data");
    expectNoSecret(JSON.stringify(Object.values(loaded)), KEY, "JSON of Object.values");
    clean(inspect({ ...loaded }, { depth: Infinity }), "a spread copy");
  });

  it("the real configuration is reached by name, and prints redacted too", async () => {
    const loaded = await load();
    // The documented accessor: what the runtime itself reads.
    expect((loaded.spell.llm as { api_key: string }).api_key).toBe(KEY);
    expect(loaded.document).toBe(loaded.spell);
    expect(loaded.intent).toBe(`open with ${OTHER}`);
    expect(loaded.source.doc.toJS()).toMatchObject({ llm: { api_key: KEY } });
    for (const [where, part] of Object.entries({
      spell: loaded.spell,
      llm: loaded.spell.llm,
      identity: loaded.spell.identity,
      tests: loaded.tests,
      source: loaded.source,
    }))
      for (const depth of [0, 2, Infinity]) clean(inspect(part, { depth }), `${where} ${depth}`);
    clean(JSON.stringify(loaded.source), "JSON of source");
    // The compiled cantrip casts with the real key (its LLM keeps it in ES private fields).
    clean(inspect(loaded.cantrip, { depth: Infinity }), "the cantrip");
  });

  it("a document made circular by a YAML alias prints and encodes without end", async () => {
    const loaded = await loadSpellText(
      `llm: { provider: openai, model: m, api_key: '\${env:MY_KEY}' }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 1 }] }
intent: go
output_schema: &a { type: object, description: '\${env:MY_KEY}', properties: { self: *a } }
`,
      "circular.yaml",
      { env: { MY_KEY: KEY }, loomPath: "memory" },
    );
    for (const depth of [2, Infinity, null]) {
      const printed = inspect(loaded.spell, { depth });
      expectNoSecret(printed, KEY, `inspect depth ${depth}`);
      if (depth !== 2) expect(printed).toContain("self: [Circular]");
      expectNoSecret(inspect(loaded, { depth }), KEY, `inspect loaded ${depth}`);
    }
    expectNoSecret(JSON.stringify(loaded), KEY, "JSON.stringify");
  });
});
