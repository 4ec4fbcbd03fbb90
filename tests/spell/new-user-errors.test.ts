// The mistakes a new user makes first, told in spell terms at file:line:col: indentation (the
// YAML parser's own words name its grammar, not the spell), and `${…}` written almost right.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpell, loadSpellText } from "../../src/spell/index.js";

async function errorOf(text: string, env: Record<string, string> = {}): Promise<string> {
  try {
    await loadSpellText(text, "s.yaml", { validateOnly: true, env });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("the spell loaded");
}

const WARDS = "wards: [{ max_turns: 1 }]";

describe("indentation mistakes are told in spell terms, at the line and column", () => {
  it("a key indented deeper than the key before it, which has a value", async () => {
    const msg = await errorOf(
      `llm: scripted\nidentity: {}\ncircle:\n  gates: [done]\n   ${WARDS}\n`,
    );
    expect(msg).toMatch(/^s\.yaml:5:4: wards is indented 3 spaces/);
    expect(msg).toMatch(/gates \(line 4\).*\(2 spaces\)/);
    expect(msg).not.toMatch(/All mapping items/);
  });

  it("a key between two columns", async () => {
    const msg = await errorOf(`llm: scripted\nidentity: {}\ncircle:\n  gates: [done]\n ${WARDS}\n`);
    expect(msg).toMatch(/^s\.yaml:5:2: wards is indented 1 space/);
    expect(msg).toMatch(/gates \(line 4, 2 spaces\)/);
    expect(msg).toMatch(/circle \(line 3, 0 spaces\)/);
  });

  it("a list item out of line with the one before it", async () => {
    const msg = await errorOf(
      `llm: scripted\nidentity: {}\ncircle:\n  ${WARDS}\n  gates:\n    - done\n   - echo\n`,
    );
    expect(msg).toMatch(/^s\.yaml:7:4: - echo is indented 3 spaces/);
    expect(msg).not.toMatch(/implicit/i);
  });

  it("a line indented under a key that already has its value", async () => {
    const msg = await errorOf(`llm: scripted\n  identity: {}\n`);
    expect(msg).toMatch(/^s\.yaml:2:3: identity is indented 2 spaces/);
    expect(msg).toMatch(/llm \(line 1\), which already has a value/);
  });

  it("a block indented too little: wards at column 0 under circle", async () => {
    const msg = await errorOf(
      `llm: scripted\nidentity: {}\ncircle:\n  medium: conversation\n  gates: [done]\nwards:\n  - max_turns: 5\n`,
    );
    expect(msg).toMatch(
      /s\.yaml:6:1: wards: unknown key at the top level — indented 0 spaces, it is not part of circle \(line 3\)/,
    );
    expect(msg).toMatch(/indent it under circle:, in line with medium \(2 spaces\)/);
  });

  it("a key indented too little one level down: temperature beside identity", async () => {
    const msg = await errorOf(
      `llm: scripted\nidentity:\n  system_prompt: hi\ntemperature: 0.2\ncircle: { gates: [done], ${WARDS} }\n`,
    );
    expect(msg).toMatch(/s\.yaml:4:1: temperature: .*not part of identity \(line 2\)/);
    expect(msg).toMatch(/indent it under identity:, in line with system_prompt \(2 spaces\)/);
  });

  it("a key that belongs in a flow mapping above it is told to move in", async () => {
    const msg = await errorOf(
      `llm: scripted\nidentity: {}\ncircle: { gates: [done] }\nwards: [{ max_turns: 1 }]\n`,
    );
    expect(msg).toMatch(/s\.yaml:4:1: wards: .*not part of circle \(line 3\).*move it into circle/);
  });

  it("an unknown key the block above does not take either keeps its list of allowed keys", async () => {
    const msg = await errorOf(
      `llm: scripted\nidentity: {}\ncircle:\n  gates: [done]\n  ${WARDS}\nmax_turns: 3\n`,
    );
    expect(msg).toMatch(/s\.yaml:6:1: max_turns: unknown key \(allowed: /);
    expect(msg).not.toMatch(/belongs/);
  });

  it("a tab used to indent", async () => {
    const msg = await errorOf(`llm: scripted\nidentity:\n\tsystem_prompt: x\n`);
    expect(msg).toMatch(/^s\.yaml:3:1: .*tab/i);
    expect(msg).toMatch(/spaces/);
  });

  it("two keys on one line", async () => {
    const msg = await errorOf(`llm: scripted\nidentity: system_prompt: hi\n`);
    expect(msg).toMatch(/^s\.yaml:2:\d+: .*identity.*system_prompt/);
    expect(msg).toMatch(/own line/);
  });
});

describe("${…} written almost right is refused, not kept as text", () => {
  const spell = (prompt: string) =>
    `llm: scripted\nidentity:\n  system_prompt: "${prompt}"\ncircle: { gates: [done], ${WARDS} }\n`;

  it("${ENV:X} (the prefix must be lower-case env)", async () => {
    const msg = await errorOf(spell("home is ${ENV:HOME}"), { HOME: "/h" });
    expect(msg).toMatch(/^s\.yaml:3:\d+: .*\$\{ENV:HOME\}.*\$\{env:HOME\}/);
  });

  it("an unterminated ${env:X", async () => {
    const msg = await errorOf(spell("home is ${env:HOME and more"), { HOME: "/h" });
    expect(msg).toMatch(/^s\.yaml:3:\d+: .*\$\{env:HOME.*not closed/);
  });

  // Other ${…} stay text: a shell's ${VAR:-x} or ${file:0:3}, JavaScript's template ${a}.
  it("while ${env:X}, ${env:X:-default}, a shell's ${VAR:-x} and a $ with no brace still load", async () => {
    await expect(
      loadSpellText(spell("${env:HOME} ${env:NOPE:-d} ${USER:-me} ${file:0:3} $5 {x}"), "s.yaml", {
        validateOnly: true,
        env: { HOME: "/h" },
      }),
    ).resolves.toBeDefined();
  });
});

describe("file gates without a root agree: each is rooted at the spell's folder", () => {
  it("read and a writable write both take the spell's folder; write alone also needs writable: true", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roots-"));
    writeFileSync(join(dir, "x.txt"), "from the spell's folder");
    const file = join(dir, "s.yaml");
    const replies = `[{ tool_calls: [{ gate: read, args: { path: x.txt } }, { gate: write, args: { path: out.txt, content: written } }] }, { tool_calls: [{ gate: done, args: { answer: ok } }] }]`;
    const spell = (write: string) =>
      `llm: { provider: scripted, responses: ${replies} }\nidentity: {}\ncircle: { gates: [done, read, ${write}], ${WARDS.replace("1", "3")} }\n`;
    writeFileSync(file, spell("{ write: { writable: true } }"));
    const loaded = await loadSpell(file, { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("read then write");
    expect(result.status).toBe("terminated");
    expect(JSON.stringify(result.loom.turns()[0]!.gate_calls)).toContain("from the spell's folder");
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("written");

    writeFileSync(file, spell("write"));
    const msg = await loadSpell(file, { loomPath: "memory" }).then(
      () => "loaded",
      (err: Error) => err.message,
    );
    expect(msg).toMatch(/s\.yaml:3:\d+: write needs writable: true/);
    expect(msg).toMatch(/like read's, its root is the spell's folder unless root: names another/);
  });
});
