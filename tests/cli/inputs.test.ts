import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { io } from "../support/io.js";

// Issue 26: `spell run FILE --input k=v` / `--inputs file.json`, checked before any cast, and
// `--json` giving the typed value of an output_schema.
const dir = mkdtempSync(join(tmpdir(), "cli-inputs-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const SPELL = write(
  "typed.yaml",
  [
    "llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: { words: 50, ok: true } } }] }] }",
    "identity: {}",
    "inputs:",
    "  type: object",
    "  properties: { path: { type: string }, words: { type: integer, minimum: 10, default: 100 }, deep: { type: boolean } }",
    "  required: [path]",
    'intent: "Summarize {{path}} in {{words}} words (deep: {{deep}})."',
    "output_schema: { type: object, properties: { words: { type: integer } }, required: [words] }",
    "circle: { gates: [done], wards: [{ max_turns: 2 }] }",
  ].join("\n"),
);
const intentsIn = (loom: string): string[] =>
  readFileSync(loom, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { metadata?: { intent?: string } })
    .flatMap((r) => (r.metadata?.intent ? [r.metadata.intent] : []));

describe("spell run --input (issue 26)", () => {
  it("reads --input values by the schema's types, fills defaults, and --json gives the typed value", async () => {
    const o = io();
    const loom = join(dir, "good.jsonl");
    const code = await runCommand(
      SPELL,
      { input: ["path=README.md", "deep=true"], json: true, loom },
      o,
    );
    expect(o.err).toBe("");
    expect(code).toBe(EXIT.ok);
    const out = JSON.parse(o.out) as { result: unknown };
    expect(out.result).toEqual({ words: 50, ok: true });
    expect(intentsIn(loom)).toEqual(["Summarize README.md in 100 words (deep: true)."]);
  });

  it("--inputs file.json, with --input on top of it", async () => {
    const o = io();
    const loom = join(dir, "file.jsonl");
    const file = write("in.json", JSON.stringify({ path: "a.md", words: 20 }));
    expect(
      await runCommand(SPELL, { inputs: file, input: ["words=30"], loom, quiet: true }, o),
    ).toBe(EXIT.ok);
    expect(intentsIn(loom)).toEqual(["Summarize a.md in 30 words (deep: )."]);
  });

  it("a bad input exits 3 naming the field, and nothing is cast", async () => {
    for (const input of [["path=a", "words=3"], ["path=a", "words=many"], ["words=20"]]) {
      const o = io();
      const loom = join(dir, `bad-${input.length}-${input[1] ?? ""}.jsonl`);
      expect(await runCommand(SPELL, { input, loom }, o)).toBe(EXIT.invalid);
      expect(o.err).toMatch(/input (words|path)/);
      expect(o.out).toBe("");
      expect(existsSync(loom) ? intentsIn(loom) : []).toEqual([]);
    }
  });
});
