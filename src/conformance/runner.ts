import { ConfigError, errorMessage } from "../core/errors.js";
import { loadDocument, loadSpell, type Spell } from "../spell/index.js";
import { kindTestRunners } from "./kinds.js";
import { dirname, resolve } from "node:path";
import type { Outcome } from "./act.js";
import { runActions } from "./act.js";
import { buildSetup, type Built } from "./build.js";
import { loadSuite, toCase, type CaseResult, type ConformanceCase } from "./case.js";
import { checkError, checkFor, expectationKeys } from "./check.js";
import { didYouMean } from "../spell/suggest.js";
import { childTurns } from "./check-turns.js";
import type { MatchContext } from "./match.js";
import { ownEntry } from "../core/own.js";

export type { CaseResult, ConformanceCase } from "./case.js";
export { loadSuite } from "./case.js";

export interface RunCaseOptions {
  /** For a spell's own tests: the spell document the setup overrides. */
  base?: Spell;
  baseDir?: string;
}

/**
 * The one check of an expectation key: why the runner cannot check it ("did you mean" a key it
 * can), or null when it can. `spell test` refuses the case; `spell validate` reports the key.
 */
export function unsupportedExpectation(key: string): string | null {
  if (key === "error" || checkFor(key)) return null;
  return `unsupported expectation: ${key}${didYouMean(key, [...expectationKeys(), "error"])}`;
}

/** A case whose expectations cannot be checked is refused, never passed: the reason, or null. */
function refusal(expect: Record<string, unknown>): string | null {
  for (const key of Object.keys(expect)) {
    const unsupported = unsupportedExpectation(key);
    if (unsupported) return unsupported;
  }
  if (Object.keys(expect).length === 0) return "a case must expect something";
  // An expectation that checks nothing cannot fail: refuse it rather than pass it.
  for (const [key, want] of Object.entries(expect)) {
    const empty =
      want !== null &&
      typeof want === "object" &&
      !Array.isArray(want) &&
      Object.keys(want).length === 0;
    if (empty || (key === "error" && typeof want === "string" && want.trim() === ""))
      return `expectation ${key} checks nothing`;
  }
  return null;
}

/**
 * Runs one case against the real library: setup → spell → loader → cantrip; the actions call
 * the real cast, loom and exporter; the expectations read what happened. Nothing is simulated.
 */
export async function runCase(
  c: ConformanceCase,
  options: RunCaseOptions = {},
): Promise<CaseResult> {
  const head = {
    rule: c.rule ?? "",
    name: c.name ?? c.description ?? "(unnamed)",
    location: c.location,
  };
  if (c.skip) return { ...head, status: "skip", message: c.skip };
  const expect = c.expect ?? {};
  const refused = refusal(expect);
  if (refused) return { ...head, status: "fail", message: refused };
  const outcome: Outcome = { casts: [], events: [], logs: [], llmKeys: [] };
  let built;
  try {
    built = buildSetup(c.setup ?? {}, { location: c.location, ...options });
  } catch (err) {
    if (isRunnerError(err)) return { ...head, status: "fail", message: errorMessage(err) };
    throw err;
  }
  try {
    const actions = c.action === undefined ? [] : Array.isArray(c.action) ? c.action : [c.action];
    try {
      await runActions(actions, built, outcome);
    } catch (err) {
      if (isRunnerError(err)) return { ...head, status: "fail", message: errorMessage(err) };
      outcome.error = err;
      outcome.logs.push(built.redactor.redact(errorMessage(err)));
    }
    const failures = judge(expect, outcome, built);
    const warnings = failures.length ? [] : leftoverWarnings(outcome, built);
    return {
      ...head,
      status: failures.length ? "fail" : "pass",
      message: failures.join("; "),
      ...(warnings.length ? { warnings } : {}),
    };
  } finally {
    built.cleanup();
  }
}

/** What the case expected against what happened: every failure, in order. */
function judge(expect: Record<string, unknown>, outcome: Outcome, built: Built): string[] {
  const failures: string[] = [];
  if ("error" in expect) {
    const r = checkError(expect["error"], outcome.error);
    if (r) failures.push(r);
  } else if (outcome.error !== undefined) {
    failures.push(`unexpected error: ${errorMessage(outcome.error)}`);
  }
  if (failures.length) return failures;
  const ctx: MatchContext = { turnIds: built.loom.turns().map((t) => t.id), bindings: new Map() };
  for (const [key, want] of Object.entries(expect)) {
    if (key === "error") continue;
    try {
      const r = checkFor(key)!(want, outcome, built, ctx);
      if (r) failures.push(r);
    } catch (err) {
      failures.push(errorMessage(err));
    }
  }
  return failures;
}

/**
 * Scripted replies no query asked for. Not a failure: a ward, an error or a child's truncation
 * may stop a loop before its script ran out (other runners accept that). When every loop
 * terminated with replies left over, the case likely lists too many: a warning says so.
 */
function leftoverWarnings(outcome: Outcome, built: Built): string[] {
  if (outcome.error !== undefined || !outcome.casts.length) return [];
  if (!outcome.casts.every((x) => x.terminated)) return [];
  const lastOfChild = new Map<string, boolean>();
  for (const t of childTurns(outcome, built)) lastOfChild.set(t.entity_id, t.truncated);
  if ([...lastOfChild.values()].some(Boolean)) return [];
  return [...built.llms]
    .filter(([, llm]) => llm.queries > 0 && llm.unused() > 0)
    .map(
      ([key, llm]) =>
        `scripted ${key} has ${llm.unused()} response(s) left unused although every loop terminated`,
    );
}

/** Errors in the case itself (unsupported keys), as opposed to errors the library raised. */
function isRunnerError(err: unknown): boolean {
  return err instanceof ConfigError && /^unsupported_|^unknown_llm$|^bad_case$/.test(err.code);
}

/** A suite file, or a spell file whose `tests:` run with the spell as their base. */
export async function runFile(
  file: string,
  onResult?: (r: CaseResult) => void,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const push = (r: CaseResult) => {
    results.push(r);
    onResult?.(r);
  };
  if (await isSpellFile(file)) {
    const doc = await loadDocument(file, { validateOnly: true });
    if (doc.kind !== "cantrip") {
      const run = ownEntry(kindTestRunners, doc.kind);
      for (const r of run ? await run(doc, file) : []) push(r);
      return results;
    }
    const loaded = await loadSpell(file, { validateOnly: true });
    for (let i = 0; i < loaded.tests.length; i++) {
      const pos = loaded.source.position(["tests", i]);
      const c = toCase(loaded.tests[i], `${file}:${pos.line}`);
      push(await runCase(c, { base: loaded.spell, baseDir: dirname(resolve(file)) }));
    }
    return results;
  }
  for (const c of loadSuite(file)) push(await runCase(c));
  return results;
}

async function isSpellFile(file: string): Promise<boolean> {
  const { readFileSync } = await import("node:fs");
  const { parse } = await import("yaml");
  const value: unknown = parse(readFileSync(file, "utf8"), { maxAliasCount: 1000 });
  if (value === null || typeof value !== "object")
    throw new ConfigError("bad_suite", `${file}: neither a spell nor a suite`);
  return !Array.isArray(value);
}
