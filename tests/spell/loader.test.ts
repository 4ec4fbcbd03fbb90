import type { Circle } from "../../src/circle/circle.js";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpellText } from "../../src/spell/index.js";

const load = (text: string, env: NodeJS.ProcessEnv = {}) =>
  loadSpellText(text, "spell.yaml", { env, loomPath: "memory" });

async function errorsOf(text: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  try {
    await load(text, env);
  } catch (err) {
    expect(err).toBeInstanceOf(SpellErrors);
    return (err as SpellErrors).errors.map((e) => e.format());
  }
  throw new Error("expected the spell to be invalid");
}

const valid = `llm: { provider: scripted, responses: [{ content: hi }] }
identity: { system_prompt: hello }
circle:
  gates: [done]
  wards: [{ max_turns: 3 }]
intent: say hi
`;

describe("loader", () => {
  it("compiles a valid spell into a cantrip that casts", async () => {
    const spell = await load(valid);
    expect(spell.intent).toBe("say hi");
    const result = await spell.cantrip!.cast(spell.intent!);
    expect(result.result).toBe("hi");
  });

  it("reports three different mistakes together, each at line:col", async () => {
    const errors = await errorsOf(`llm: { provider: scripted }
identity: { system_prompt: hi, temprature: 0.2 }
circle:
  gates: [done, ech]
  wards: [{ max_turns: -1 }]
`);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(
      /^spell\.yaml:2:32: identity\.temprature: unknown key; did you mean "temperature"\?/,
    );
    expect(errors[1]).toMatch(
      /^spell\.yaml:4:17: circle\.gates\.1: unknown gate "ech"; did you mean "echo"\?/,
    );
    expect(errors[2]).toMatch(/^spell\.yaml:5:24: circle\.wards\.0\.max_turns: must be >= 0/);
  });

  it("checks a spell's own tests: replies and setup keys, at line:col", async () => {
    const text = `${valid}tests:
  - name: t
    setup:
      llm:
        responses:
          - null
      gravity: 1
    action: { cast: { intent: go } }
    expect: { terminated: true }
`;
    const errors = await errorsOf(text);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^spell\.yaml:12:13: tests\.0\.setup\.llm\.responses\.0: must be object$/,
        ),
        "spell.yaml:13:7: tests.0.setup.gravity: unknown key (allowed: circle, identity, filesystem, folding, retry, inputs, output_schema, any key matching /llm/)",
      ]) as unknown,
    );
  });

  it("points an unknown top-level key at the key", async () => {
    const errors = await errorsOf(`${valid}circel: {}\n`);
    expect(errors).toEqual([
      expect.stringMatching(/^spell\.yaml:7:1: circel: unknown key; did you mean "circle"\?/),
    ]);
  });

  it("reports YAML syntax errors with a position", async () => {
    const errors = await errorsOf("llm: [unclosed\n");
    expect(errors[0]).toMatch(/^spell\.yaml:\d+:\d+: /);
  });

  it("reports runtime rules (a missing done gate) at the circle's gates", async () => {
    const errors = await errorsOf(valid.replace("gates: [done]", "gates: [echo]"));
    expect(errors).toEqual(["spell.yaml:4:10: circle must have a done gate"]);
  });

  it("interpolates ${env:NAME} and ${env:NAME:-default}", async () => {
    const text = valid.replace(
      "system_prompt: hello",
      'system_prompt: "${env:GREETING} and ${env:MISSING:-fallback}"',
    );
    const spell = await load(text, { GREETING: "howdy" });
    expect(spell.cantrip!.identity.systemPrompt).toBe("howdy and fallback");
    expect(spell.redactor.redact("say howdy")).toBe("say [REDACTED]");
  });

  it("interpolates a ${env:NAME} that only a double-quoted escape or line join writes", async () => {
    const escaped = valid.replace(
      "system_prompt: hello",
      'system_prompt: "\\x24{env:GREETING} and $\\\n  {env:OTHER}"',
    );
    expect(escaped).not.toContain("${");
    const spell = await load(escaped, { GREETING: "howdy", OTHER: "hey" });
    expect(spell.cantrip!.identity.systemPrompt).toBe("howdy and hey");
    const errors = await errorsOf(valid.replace("intent: say hi", 'intent: "\\u0024{ENV:X}"'));
    expect(errors).toEqual([
      expect.stringMatching(/^spell\.yaml:6:\d+: \$\{ENV:X\} is not interpolated/),
    ]);
  });

  it("never quotes an interpolated value in an error (PROD-8)", async () => {
    const errors = await errorsOf(
      valid.replace("provider: scripted", 'provider: "${env:MY_TOKEN}"'),
      { MY_TOKEN: "tok-1234-abcd" },
    );
    expect(errors).toEqual([
      'spell.yaml:1:18: llm.provider: unknown provider "[REDACTED]"; expected one of: anthropic, google, local, openai, openrouter, replay, scripted',
    ]);
  });

  it("errors on an unset variable without default, at its position", async () => {
    const errors = await errorsOf(
      valid.replace("system_prompt: hello", 'system_prompt: "${env:NOPE}"'),
    );
    expect(errors).toEqual([
      expect.stringMatching(/^spell\.yaml:2:28: environment variable NOPE is not set/),
    ]);
  });

  it("accepts the old words crystal and call with a warning", async () => {
    const spell = await load(valid.replace("llm:", "crystal:").replace("identity:", "call:"));
    expect(spell.warnings.map((w) => w.message)).toEqual([
      '"crystal" is the old word for "llm"; write llm:',
      '"call" is the old word for "identity"; write identity:',
    ]);
    expect(spell.warnings[0]!.position).toEqual({ file: "spell.yaml", line: 1, col: 1 });
    expect(spell.cantrip).toBeDefined();
  });

  it("refuses a YAML alias bomb", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 8; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    await expect(load(bomb.join("\n"))).rejects.toThrow(/alias bomb/);
  });

  it("refuses files over the size limit", async () => {
    await expect(load(`# ${"x".repeat(1024 * 1024)}\n${valid}`)).rejects.toThrow(
      /spell file is \d+ bytes; the limit is 1048576/,
    );
  });

  it("rejects conflicting medium declarations (MEDIUM-1)", async () => {
    const errors = await errorsOf(
      valid.replace("gates: [done]", "medium: conversation\n  circle_type: code\n  gates: [done]"),
    );
    expect(errors[0]).toMatch(/circle must declare exactly one medium/);
  });

  it("resolves gate roots against the spell's folder, not the working directory", async () => {
    const spell = await loadSpellText(
      valid.replace("gates: [done]", "gates: [done, { read: { root: . } }]"),
      "grimoire/x.yaml",
      { env: {}, loomPath: "memory" },
    );
    expect((spell.cantrip!.circle as Circle).gates.has("read")).toBe(true);
    await expect(
      loadSpellText(
        valid.replace("gates: [done]", "gates: [done, { read: { root: no-such-dir } }]"),
        "grimoire/x.yaml",
        { env: {}, loomPath: "memory" },
      ),
    ).rejects.toThrow(/gate root "\S*no-such-dir" does not exist: make the folder, or point root:/);
  });
});
