// A.1 Query: "One round-trip. No loop, no circle, no entity — just the atomic unit (§2.1)."
// grimoire/01-query.yaml is a `kind: query` document: an LLM and the messages it is sent, once.
import { cpSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { testCommand } from "../../src/cli/test.js";
import { validateCommand } from "../../src/cli/validate.js";
import { SpellErrors } from "../../src/core/errors.js";
import { ScriptedLLM } from "../../src/llm/providers/scripted.js";
import type { QueryProgram } from "../../src/spell/kinds/index.js";
import { loadDocument } from "../../src/spell/index.js";
import { io } from "../support/io.js";

const copy = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "query-"));
  cpSync("grimoire/01-query.yaml", join(dir, "01-query.yaml"));
  return dir;
};

describe("A.1 Query: one round-trip, no loop, no circle, no entity", () => {
  it("is a kind: query document; its one call sends the messages as written and gives content and usage", async () => {
    const llm = new ScriptedLLM({
      responses: [{ content: "4", usage: { prompt_tokens: 3, completion_tokens: 1 } }],
      recordInputs: true,
    });
    const loaded = await loadDocument("grimoire/01-query.yaml", { llm, env: {} });
    expect(loaded.kind).toBe("query");
    const query = loaded.value as QueryProgram;
    const answer = await query.run();
    expect(answer).toEqual({
      content: "4",
      usage: { promptTokens: 3, completionTokens: 1, cachedTokens: 0 },
    });
    // One query, the messages alone: no system prompt, no tools (no circle), nothing added.
    expect(llm.invocations).toHaveLength(1);
    expect(llm.invocations[0]!.messages).toEqual([{ role: "user", content: "What is 2 + 2?" }]);
    expect(llm.invocations[0]!.tools).toEqual([]);
  });

  it("spell run prints the answer and creates nothing: no loom, no .spellbook/", async () => {
    const dir = copy();
    const o = io();
    o.cwd = dir;
    const code = await runCommand(join(dir, "01-query.yaml"), {}, o);
    expect(o.err).toBe("");
    expect(code).toBe(EXIT.ok);
    expect(o.out).toBe("2 + 2 = 4.\n");
    expect(readdirSync(dir)).toEqual(["01-query.yaml"]);
  });

  it("spell run --json gives the content and the usage; --intent replaces the last user message", async () => {
    const dir = copy();
    const o = io();
    o.cwd = dir;
    const file = join(dir, "01-query.yaml");
    expect(await runCommand(file, { json: true, intent: "And 3 + 3?" }, o)).toBe(EXIT.ok);
    expect(JSON.parse(o.out)).toEqual({
      content: "2 + 2 = 4.",
      usage: { prompt_tokens: 14, completion_tokens: 6, cached_tokens: 0, total_tokens: 20 },
    });
  });

  it("spell run --loom is refused: a query records nothing", async () => {
    const dir = copy();
    const o = io();
    o.cwd = dir;
    const file = join(dir, "01-query.yaml");
    expect(await runCommand(file, { loom: join(dir, "l.jsonl") }, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/a query records nothing/);
    expect(existsSync(join(dir, "l.jsonl"))).toBe(false);
  });

  it("spell validate accepts it; a malformed query is refused at file:line:col", async () => {
    const ok = io();
    expect(await validateCommand(["grimoire/01-query.yaml"], ok)).toBe(EXIT.ok);
    expect(ok.out).toBe("grimoire/01-query.yaml: ok\n");
    const dir = mkdtempSync(join(tmpdir(), "query-bad-"));
    const bad = join(dir, "bad.yaml");
    writeFileSync(
      bad,
      [
        "kind: query",
        "llm: { provider: scripted, responses: [{ content: hi }] }",
        "messages:",
        "  - { role: wizard, content: hi }",
        "circle: { gates: [done] }",
      ].join("\n"),
    );
    const err = await loadDocument(bad, { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpellErrors);
    const text = (err as SpellErrors).message;
    expect(text).toContain(`${bad}:4:`);
    expect(text).toMatch(/role/);
    expect(text).toContain(`${bad}:5:1: circle`);
    const empty = join(dir, "empty.yaml");
    writeFileSync(empty, "kind: query\nllm: scripted\nmessages: []\n");
    await expect(loadDocument(empty, { env: {} })).rejects.toThrow(`${empty}:3:`);
  });

  it("its own tests run under spell test: the answer and usage, and LLM-3's invalid reply", async () => {
    const o = io();
    expect(await testCommand(["grimoire/01-query.yaml"], { reporter: "text" }, o)).toBe(EXIT.ok);
    expect(o.out.match(/^✓ /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(o.out).not.toMatch(/^✗ /m);
  });
});
