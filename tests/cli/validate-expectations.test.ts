/**
 * `spell validate` checks the expectation keys of a spell's `tests:` with the check `spell test`
 * refuses a case by (src/conformance/runner.ts unsupportedExpectation): a misspelt key is an
 * error at its file:line:col with the same "did you mean", exit 3, before any test is run.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { validateCommand } from "../../src/cli/validate.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "validate-expect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spellWithTests(name: string, cases: string[]): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    [
      `name: ${name.replace(".yaml", "")}`,
      "llm: { provider: scripted, responses: [{ content: '4' }] }",
      "identity: { system_prompt: hi }",
      "circle: { gates: [done], wards: [{ max_turns: 3 }] }",
      "tests:",
      ...cases,
      "",
    ].join("\n"),
  );
  return file;
}

describe("spell validate on a spell whose test expects an unknown key", () => {
  it("reports the key at its line and column with spell test's did-you-mean, exit 3", async () => {
    const file = spellWithTests("typo.yaml", [
      "  - name: right",
      "    action: { cast: { intent: '2+2' } }",
      "    expect: { result: '4' }",
      "  - name: typo",
      "    action: { cast: { intent: '2+2' } }",
      "    expect: { reslt: '4', thread_1: { length: 1 } }",
    ]);
    const o = io();
    expect(await validateCommand([file], o)).toBe(EXIT.invalid);
    const lines = o.err.trim().split("\n");
    expect(lines).toEqual([
      `${file}:11:15: unsupported expectation: reslt; did you mean "result"?`,
    ]);
    expect(o.out).toContain(`${file}: 1 error\n`);
    expect(o.out).not.toContain(`${file}: ok`);
  });

  it("reports each unknown key of each case", async () => {
    const file = spellWithTests("two.yaml", [
      "  - name: one",
      "    action: { cast: { intent: '2+2' } }",
      "    expect:",
      "      vibes: good",
      "  - name: two",
      "    action: { cast: { intent: '2+2' } }",
      "    expect: { error: boom, reslt: x }",
    ]);
    const o = io();
    expect(await validateCommand([file], o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/two\.yaml:9:7: unsupported expectation: vibes\n/);
    expect(o.err).toMatch(/two\.yaml:12:28: unsupported expectation: reslt; did you mean/);
    expect(o.out).toContain(`${file}: 2 errors\n`);
  });

  it("accepts the keys spell test checks, named ones (thread_N, error) included", async () => {
    const file = spellWithTests("fine.yaml", [
      "  - name: fine",
      "    action: { cast: { intent: '2+2' } }",
      "    expect: { result: '4', thread_1: { length: 1 } }",
      "  - name: fails",
      "    action: { cast: { intent: '2+2' } }",
      "    expect: { error: boom }",
    ]);
    const o = io();
    expect(await validateCommand([file], o)).toBe(EXIT.ok);
    expect(o.err).toBe("");
    expect(o.out).toContain(`${file}: ok`);
  });
});
