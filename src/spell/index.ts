import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Cantrip } from "../core/cantrip.js";
import { ConfigError, SpellErrors, SystemError, type SpellbookError } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import type { Spell, TestCase } from "../generated/spell.js";
import type { LLM } from "../llm/contract.js";
import type { LLMSpec } from "../llm/registry.js";
import { compileSpell } from "./compile.js";
import { interpolateEnv, renameOldWords, type Warning } from "./rewrite.js";
import { SpellSource } from "./source.js";
import { schemaErrors } from "./validate.js";

export type { Warning } from "./rewrite.js";

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Replaces the spell's LLM (spell tests, `spell run --llm`). */
  llm?: LLM;
  /** Replaces the spell's `llm:` block; built like the spell's own, keeping its `retry` (`spell run --llm`). */
  llmSpec?: LLMSpec | undefined;
  /** Where provider warnings go (settings a provider cannot honour); default process.emitWarning. */
  onWarning?: ((message: string) => void) | undefined;
  /** Replaces the spell's loom path; "memory" keeps the loom in memory. */
  loomPath?: string | undefined;
  /** The loom path when neither the spell nor `loomPath` names one (the CLI's default). */
  defaultLoomPath?: string | undefined;
  /** Parse and validate only: no LLM client is built (spell validate). */
  validateOnly?: boolean;
}

export interface LoadedSpell {
  file: string;
  name: string;
  description: string | undefined;
  intent: string | undefined;
  /** Absent when `validateOnly`. */
  cantrip: Cantrip | undefined;
  tests: TestCase[];
  warnings: Warning[];
  redactor: Redactor;
  /** The validated, interpolated document (snake_case, as written). */
  spell: Spell;
  source: SpellSource;
}

/** parse → rename old words → interpolate → validate → compile. Throws SpellErrors with all errors. */
export async function loadSpell(file: string, options: LoadOptions = {}): Promise<LoadedSpell> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new SystemError("spell_unreadable", `cannot read ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return loadSpellText(text, file, options);
}

export async function loadSpellText(
  text: string,
  file: string,
  options: LoadOptions = {},
): Promise<LoadedSpell> {
  const { source, value, warnings, redactor } = parseSpell(text, file, options.env ?? process.env);
  const spell = value as Spell;
  const base = {
    file,
    name: spell.name ?? file,
    description: spell.description,
    intent: spell.intent,
    tests: spell.tests ?? [],
    warnings,
    redactor,
    spell,
    source,
  };
  const ctx = {
    file,
    baseDir: dirname(resolve(file)),
    locate: source.position.bind(source),
    env: options.env ?? process.env,
    redactor,
    warnings,
    llm: options.llm ?? (options.validateOnly ? validationLLM : undefined),
    llmSpec: options.llmSpec,
    warn: options.onWarning,
    validateOnly: options.validateOnly,
    loomPath: options.validateOnly ? "memory" : options.loomPath,
    defaultLoomPath: options.defaultLoomPath,
  };
  const { cantrip, errors } = await compileSpell(spell, ctx);
  if (errors.length) throw redactedErrors(errors, redactor);
  return { ...base, cantrip: options.validateOnly ? undefined : cantrip };
}

/** Parse, rewrite and validate; throws SpellErrors holding every problem found. */
export function parseSpell(text: string, file: string, env: NodeJS.ProcessEnv) {
  const source = new SpellSource(file, text);
  const errors: SpellbookError[] = source.syntaxErrors();
  if (errors.length) throw new SpellErrors(errors);
  const warnings: Warning[] = [];
  const redactor = new Redactor();
  const rewriteErrors: ConfigError[] = [];
  try {
    renameOldWords(source, warnings);
  } catch (err) {
    if (err instanceof ConfigError) rewriteErrors.push(err);
    else throw err;
  }
  interpolateEnv(source, env, redactor, rewriteErrors);
  const value = source.toJS();
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SpellErrors([
      new ConfigError(
        "spell_not_mapping",
        "a spell is a YAML mapping (key: value)",
        source.position([]),
      ),
    ]);
  }
  const all = [...rewriteErrors, ...schemaErrors(value, source.position.bind(source))];
  if (all.length) throw redactedErrors(all.sort(byPosition), redactor);
  return { source, value, warnings, redactor };
}

/** An error may quote a value that came from the environment: it leaves redacted (PROD-8). */
function redactedErrors(errors: SpellbookError[], redactor: Redactor): SpellErrors {
  for (const e of errors) e.message = redactor.redact(e.message);
  return new SpellErrors(errors);
}

const byPosition = (a: SpellbookError, b: SpellbookError): number =>
  (a.position?.line ?? 0) - (b.position?.line ?? 0) ||
  (a.position?.col ?? 0) - (b.position?.col ?? 0);

/** Stands in for the LLM when a spell is only validated; it is never queried. */
const validationLLM: LLM = {
  name: "validation-only",
  query: () =>
    Promise.reject(new ConfigError("validate_only", "this spell was loaded for validation only")),
};
