// An eval whose spell declares `inputs:`: each case's vars are the spell's inputs, checked by
// castIntent (the one check and substitution every surface uses); a bad row names case and field.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { runEval } from "../../src/eval/run.js";
import { loadDocument } from "../../src/spell/index.js";
import type { EvalPlan } from "../../src/spell/kinds/index.js";

const TYPED = `name: typed
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: ok } }] }] }
identity: {}
inputs:
  type: object
  properties: { path: { type: string }, words: { type: integer, minimum: 10, default: 100 } }
  required: [path]
intent: "Summarize {{path}} in {{words}} words."
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

function load(cases: string, dir = mkdtempSync(join(tmpdir(), "eval-inputs-"))) {
  writeFileSync(join(dir, "typed.yaml"), TYPED);
  writeFileSync(
    join(dir, "eval.yaml"),
    `kind: eval\nname: e\nspells: [./typed.yaml]\ncases:\n${cases}`,
  );
  return loadDocument(join(dir, "eval.yaml"), { env: {} });
}

async function errorsOf(cases: string): Promise<string[]> {
  try {
    await load(cases);
  } catch (err) {
    if (err instanceof SpellErrors) return err.errors.map((e) => `${e.code}: ${e.message}`);
    throw err;
  }
  return [];
}

describe("eval cases and a spell's inputs:", () => {
  it("a case's vars are the inputs: checked, defaults filled, put into the spell's intent: template", async () => {
    const plan = (
      await load(`  - { name: readme, vars: { path: README.md } }
  - { name: short, vars: { path: a.md, words: 12 } }
`)
    ).value as EvalPlan;
    expect(plan.cases.map((c) => [c.id, c.intent])).toEqual([
      ["readme", "Summarize README.md in 100 words."],
      ["short", "Summarize a.md in 12 words."],
    ]);
  });

  it("a case's own intent replaces the template, substituted the same way (castIntent's call.intent)", async () => {
    const plan = (
      await load(`  - { intent: "Shorten {{path}} to {{words}}.", vars: { path: x } }\n`)
    ).value as EvalPlan;
    expect(plan.cases[0]!.intent).toBe("Shorten x to 100.");
  });

  it("a bad row is an error naming the case and the field; every bad row is reported", async () => {
    const errors = await errorsOf(`  - { name: small, vars: { path: a, words: 3 } }
  - { name: nopath, vars: { words: 20 } }
  - { name: fine, vars: { path: b } }
`);
    expect(errors).toEqual([
      "bad_input: cases[0] (small): input words: must be >= 10",
      "bad_input: cases[1] (nopath): input path: is required",
    ]);
  });

  it("the run casts each case's substituted intent (the loom of a real runEval)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-inputs-"));
    const plan = (await load(`  - { name: readme, vars: { path: README.md } }\n`, dir))
      .value as EvalPlan;
    const out = join(dir, "out");
    const run = await runEval(plan, { out, env: {} });
    expect(run.done).toBe(1);
    const intents = readFileSync(join(out, "loom.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { metadata?: { intent?: string } }).metadata?.intent)
      .filter((i) => i !== undefined);
    expect(intents).toEqual(["Summarize README.md in 100 words."]);
  });
});
