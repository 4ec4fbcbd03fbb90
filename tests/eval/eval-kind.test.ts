// kind: eval documents: cases inline or from a $file (JSONL, CSV, YAML), vars put into the
// intent, and every problem positioned at file:line:col — a $file row in its own file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadDocument } from "../../src/spell/index.js";
import type { EvalPlan } from "../../src/spell/kinds/index.js";
import { ADDER } from "./support/harness.js";

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "eval-kind-"));
  writeFileSync(join(dir, "adder.yaml"), ADDER);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const env = { EVAL_BASE: "http://127.0.0.1:9/v1", EVAL_KEY: "k" };

async function errorsOf(dir: string): Promise<string[]> {
  try {
    await loadDocument(join(dir, "eval.yaml"), { env });
  } catch (err) {
    if (err instanceof SpellErrors) return err.errors.map((e) => e.format());
    throw err;
  }
  return [];
}

const HEAD = "kind: eval\nname: e\nspells: [./adder.yaml]\n";

describe("kind: eval", () => {
  it("loads inline cases: vars in the intent, the document's expectations before the case's", async () => {
    const dir = folder({
      "eval.yaml": `${HEAD}expect: [{ max_turns: 2 }]
cases:
  - { name: sum, intent: "What is {{a}} + {{ b }}?", vars: { a: 1, b: 2 }, expect: [{ result: "3" }] }
repeat: 3
`,
    });
    const plan = (await loadDocument(join(dir, "eval.yaml"), { env })).value as EvalPlan;
    expect(plan.cases).toEqual([
      {
        id: "sum",
        intent: "What is 1 + 2?",
        expect: [{ max_turns: 2 }, { result: "3" }],
        location: `${join(dir, "eval.yaml")}:6`,
      },
    ]);
    expect(plan).toMatchObject({ name: "e", repeat: 3, spells: [join(dir, "adder.yaml")] });
  });

  it("reads cases from JSONL, CSV (other columns are vars) and YAML files", async () => {
    const jsonl = '{"intent":"What is {{a}}?","vars":{"a":1}}\n\n{"name":"two","intent":"2?"}\n';
    const csv = 'name,intent,a,expect\none,"What is {{a}}, really?",7,"[{""result"": ""7""}]"\n';
    const yaml = "- intent: y\n  expect: [{ result_contains: y }]\n";
    const dir = folder({ "c.jsonl": jsonl, "c.csv": csv, "c.yaml": yaml });
    const plans: EvalPlan[] = [];
    for (const f of ["c.jsonl", "c.csv", "c.yaml"]) {
      writeFileSync(join(dir, "eval.yaml"), `${HEAD}cases: { $file: ${f} }\n`);
      plans.push((await loadDocument(join(dir, "eval.yaml"), { env })).value as EvalPlan);
    }
    expect(plans[0]!.cases.map((c) => [c.id, c.intent, c.location])).toEqual([
      ["case-1", "What is 1?", `${join(dir, "c.jsonl")}:1`],
      ["two", "2?", `${join(dir, "c.jsonl")}:3`],
    ]);
    expect(plans[1]!.cases).toMatchObject([
      { id: "one", intent: "What is 7, really?", expect: [{ result: "7" }] },
    ]);
    expect(plans[2]!.cases).toMatchObject([{ intent: "y", expect: [{ result_contains: "y" }] }]);
  });

  it("reports every problem at file:line:col: schema, assertions, vars, regexes, $file rows, spells", async () => {
    const dir = folder({
      "eval.yaml": `${HEAD}cases:
  - intent: "What is {{a}}?"
  - intent: x
    expect: [{ result_matches: "(" }]
  - intent: y
    expect: [{ resul: 3 }]
`,
    });
    const errs = await errorsOf(dir);
    const file = join(dir, "eval.yaml");
    expect(errs).toHaveLength(3); // all at once, in the file's order
    expect(errs[0]).toMatch(
      new RegExp(`^${file}:5:13: .*\\{\\{a\\}\\} is not among the case's vars`),
    );
    expect(errs[1]).toMatch(
      new RegExp(
        `^${file}:7:14: .*result_matches: /\\(/ is not RE2 syntax .*: missing closing \\)`,
      ),
    );
    expect(errs[2]).toMatch(new RegExp(`^${file}:9:14: .*unknown assertion resul`));
    writeFileSync(
      join(dir, "rows.jsonl"),
      '{"intent":"ok"}\n{"intent":"x","expect":[{"nope":1}]}\n{oops\n',
    );
    writeFileSync(join(dir, "eval.yaml"), `${HEAD}cases: { $file: rows.jsonl }\n`);
    expect((await errorsOf(dir))[0]).toMatch(
      new RegExp(`^${join(dir, "rows.jsonl")}:3:1: .*not a JSON line`),
    );
    writeFileSync(
      join(dir, "rows.jsonl"),
      '{"intent":"ok"}\n{"intent":"x","expect":[{"nope":1}]}\n',
    );
    expect((await errorsOf(dir))[0]).toMatch(
      new RegExp(`^${join(dir, "rows.jsonl")}:2:1: .*unknown assertion nope`),
    );
    writeFileSync(
      join(dir, "eval.yaml"),
      "kind: eval\nspells: [./adder.yaml, ./eval.yaml]\ncases: [{ intent: x }]\n",
    );
    expect((await errorsOf(dir))[0]).toMatch(
      new RegExp(`^${file}:2:24: .*kind: eval document, not a spell`),
    );
  });
});
