/**
 * The `eval` kind (issue 23, docs/design/EVALS.md): spells cast over many cases, repeated and
 * scored. Resolving reads the cases (inline or `$file`: JSONL, CSV, YAML), checks each row, puts
 * its vars into its intent, and checks each spell loads as a cantrip; every problem is collected
 * and positioned at file:line:col (a `$file` row in its own file). The value is a plan the eval
 * runner (src/eval/) casts; spells are loaded again there, each with the run's LLM and loom.
 */
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { LINEAR_AJV, linearPattern } from "../../core/linear-pattern.js";
import {
  ConfigError,
  SpellErrors,
  errorMessage,
  type SourcePosition,
  type SpellbookError,
  type ErrorCode,
} from "../../core/errors.js";
import { isJsonObject } from "../../core/json.js";
import type { Assertion, Case, Eval } from "../../generated/eval.js";
import validateEval from "../../generated/eval-validate.js";
import type { CallableSpell } from "../inputs.js";
import type { LoadOptions } from "../options.js";
import type { Path } from "../source.js";
import { readCaseRows } from "./eval-cases.js";
import { caseIntents, type EvalSpell } from "./eval-intents.js";
import type { DocumentKind, KindContext } from "./kind.js";

export type EvalAssertion = Record<string, unknown>;

/** One case, its vars in its intent and the document's expectations before its own. */
export interface EvalCase {
  id: string;
  /** The intent cast (of the first spell when spells declare `inputs:`). */
  intent: string;
  /** Each spell's intent by its file, when a spell declares `inputs:` (eval-intents.ts). */
  intents?: Record<string, string>;
  expect: EvalAssertion[];
  /** file:line of the row. */
  location: string;
}

export interface EvalPlan {
  name: string;
  file: string;
  /** Absolute paths of the spells, in the document's order. */
  spells: string[];
  /** provider/model of the matrix; undefined: each spell's own LLM. */
  llms: string[] | undefined;
  cases: EvalCase[];
  repeat: number;
  concurrency: number;
  providerConcurrency: Record<string, number>;
  passRate: number;
  regression: number;
}

/** The assertion keys a row may use (the schema's enum, for rows read from a `$file`). */
const KEYS = new Set([
  ...["result", "result_contains", "result_matches", "result_schema", "turns", "max_turns"],
  ...["terminated", "truncated", "reason", "gate_calls_executed", "gate_call_order"],
  ...["gate_results", "turn_1_observation", "thread", "loom", "usage", "child_turns"],
  ...["child_truncated", "judge", "max_cost_usd", "max_latency_ms", "javascript"],
]);
const CASE_KEYS = new Set(["name", "intent", "vars", "expect"]);

interface Row {
  value: unknown;
  /** Where the row is: its path in the document, or its position in a `$file`. */
  at: (path: Path) => SourcePosition;
  label: string;
}

export const evalKind: DocumentKind<Eval, EvalPlan, EvalPlan> = {
  name: "eval",
  validator: validateEval,
  async resolve(doc, ctx) {
    const errors: SpellbookError[] = [];
    const rows = caseRows(doc, ctx, errors);
    const cases: EvalCase[] = [];
    const ids = new Set<string>();
    const shared = (doc.expect ?? []) as EvalAssertion[];
    errors.push(...assertionErrors(shared, (p) => ctx.locate(["expect", ...p]), "expect"));
    // A spell by registry reference is fetched like run's (under the lock, from the cache).
    const spells: string[] = [];
    for (const s of doc.spells)
      spells.push(s.startsWith("oci://") ? await ctx.remote(s) : resolvePath(ctx.baseDir, s));
    const callable: EvalSpell[] = [];
    for (const [i, file] of spells.entries()) {
      const spell = await checkSpell(file, i, ctx, errors);
      if (spell) callable.push({ file, spell });
    }
    for (const [i, row] of rows.entries()) {
      const c = caseOf(row, errors);
      if (!c) continue;
      const id = c.name ?? `case-${i + 1}`;
      if (ids.has(id)) fail(errors, row.at(["name"]), `${row.label}.name: ${id} is used twice`);
      ids.add(id);
      const label = c.name ? `${row.label} (${c.name})` : row.label;
      const intents = await caseIntents(c, label, row.at, callable, errors);
      const own = (c.expect ?? []) as EvalAssertion[];
      errors.push(...assertionErrors(own, (p) => row.at(["expect", ...p]), `${row.label}.expect`));
      const { file, line } = row.at([]);
      if (intents)
        cases.push({
          id,
          intent: intents.intent,
          ...(intents.bySpell ? { intents: intents.bySpell } : {}),
          expect: [...shared, ...own],
          location: `${file}:${line}`,
        });
    }
    if (errors.length) return { errors };
    return {
      errors,
      resolved: {
        name: doc.name ?? "eval",
        file: ctx.file,
        spells,
        llms: doc.llms,
        cases,
        repeat: doc.repeat ?? 1,
        concurrency: doc.concurrency ?? 4,
        providerConcurrency: doc.provider_concurrency ?? {},
        passRate: doc.pass?.rate ?? 1,
        regression: doc.pass?.regression ?? 0,
      },
    };
  },
  compile: (plan) => Promise.resolve({ value: plan, errors: [] }),
};

const fail = (errors: SpellbookError[], at: SourcePosition, message: string) =>
  errors.push(new ConfigError("eval_case", message, at));

function caseRows(doc: Eval, ctx: KindContext, errors: SpellbookError[]): Row[] {
  if (Array.isArray(doc.cases))
    return doc.cases.map((value, i) => ({
      value,
      at: (p: Path) => ctx.locate(["cases", i, ...p]),
      label: `cases[${i}]`,
    }));
  const file = resolvePath(ctx.baseDir, doc.cases.$file);
  try {
    return readCaseRows(file).map(({ value, position }, i) => ({
      value,
      at: () => position,
      label: `case ${i + 1}`,
    }));
  } catch (err) {
    const e =
      err instanceof ConfigError && err.position
        ? err
        : new ConfigError("eval_cases", errorMessage(err), ctx.locate(["cases", "$file"]));
    errors.push(e);
    return [];
  }
}

/** A row read from a `$file` has not met the schema: the same rules, checked here. */
function caseOf(row: Row, errors: SpellbookError[]): Case | undefined {
  const v = row.value as Record<string, unknown>;
  const bad = (m: string, path: Path = []) => (
    fail(errors, row.at(path), `${row.label}${m}`),
    undefined
  );
  if (v === null || typeof v !== "object" || Array.isArray(v))
    return bad(": a case is a mapping with intent, vars and expect");
  for (const key of Object.keys(v))
    if (!CASE_KEYS.has(key)) return bad(`: unknown key ${key} (known: intent, name, vars, expect)`);
  if (v["intent"] !== undefined && typeof v["intent"] !== "string")
    return bad(".intent: a case's intent is text");
  const vars = v["vars"];
  if (vars !== undefined && (vars === null || typeof vars !== "object" || Array.isArray(vars)))
    return bad(".vars: a mapping of names to values", ["vars"]);
  if (v["expect"] !== undefined && !Array.isArray(v["expect"]))
    return bad(".expect: a list of one-key assertions", ["expect"]);
  return v;
}

/**
 * Keys the vocabulary does not have, regexes RE2 cannot take (they match in linear time:
 * core/linear-pattern.ts), schemas ajv refuses (their patterns RE2's too).
 */
function assertionErrors(
  list: EvalAssertion[],
  at: (path: Path) => SourcePosition,
  label: string,
): SpellbookError[] {
  const errors: SpellbookError[] = [];
  list.forEach((a, i) => {
    const where = (m: string, code: ErrorCode = "eval_assertion") =>
      errors.push(new ConfigError(code, `${label}[${i}]: ${m}`, at([i])));
    if (a === null || typeof a !== "object" || Object.keys(a).length !== 1)
      return where("an assertion is a mapping with one key");
    const [key, value] = Object.entries(a)[0]!;
    if (!KEYS.has(key)) return where(`unknown assertion ${key}; known: ${[...KEYS].join(", ")}`);
    const assertion = a as Assertion;
    if (key === "result_matches")
      try {
        linearPattern(String(assertion.result_matches));
      } catch (err) {
        where(`result_matches: ${errorMessage(err)}`);
      }
    if (key === "result_schema")
      try {
        new Ajv2020.default({ strict: false, ...LINEAR_AJV }).compile(value as object);
      } catch (err) {
        where(`result_schema: ${errorMessage(err)}`);
      }
  });
  return errors;
}

/** The spell checked to load as a cantrip; its `inputs:` and `intent:`, or undefined. */
async function checkSpell(
  spell: string,
  i: number,
  ctx: KindContext,
  errors: SpellbookError[],
): Promise<CallableSpell | undefined> {
  const at = ctx.locate(["spells", i]);
  const only: LoadOptions = { validateOnly: true, env: ctx.env };
  // Only a cantrip is loaded: another kind (an eval naming itself, say) is refused unread.
  const kind = kindOf(spell);
  if (kind !== "cantrip") {
    errors.push(
      new ConfigError("eval_spell", `spells[${i}]: a kind: ${kind} document, not a spell`, at),
    );
    return;
  }
  try {
    const loaded = await ctx.loadNested(spell, only);
    if (loaded.kind !== "cantrip") {
      errors.push(
        new ConfigError(
          "eval_spell",
          `spells[${i}]: a kind: ${loaded.kind} document, not a spell`,
          at,
        ),
      );
      return undefined;
    }
    const doc = loaded.document ?? {};
    const inputs = doc["inputs"];
    return {
      inputs: isJsonObject(inputs) ? inputs : undefined,
      intent: typeof doc["intent"] === "string" ? doc["intent"] : undefined,
    };
  } catch (err) {
    if (err instanceof SpellErrors) errors.push(...err.errors);
    else
      errors.push(
        new ConfigError("eval_spell", `spells[${i}]: cannot load: ${errorMessage(err)}`, at),
      );
  }
}

/** The `kind:` a file names at its top level (cantrip when none, or when it cannot be read). */
function kindOf(file: string): string {
  try {
    return /^kind:\s*["']?([\w-]+)/m.exec(readFileSync(file, "utf8"))?.[1] ?? "cantrip";
  } catch {
    return "cantrip"; // the loader reports the unreadable file with its own words
  }
}
