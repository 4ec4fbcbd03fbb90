import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { displayPath } from "./io.js";
import { openSpell } from "./open-spell.js";
import { ConfigError, SpellErrors, errorMessage } from "../core/errors.js";
import { loadDocument, type LoadedDocument } from "../spell/index.js";
import type { Warning } from "../spell/rewrite.js";
import type { Path } from "../spell/source.js";
import { PROFILES } from "../llm/providers/profiles.js";
import { EXIT, type CliIO } from "./io.js";
import {
  ApprovalPolicy,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type ApprovalRule,
} from "../circle/approvals.js";

/** `spell validate FILE…`: every problem of every file (of any kind), each at file:line:col. */
export async function validateCommand(files: string[], io: CliIO): Promise<number> {
  let bad = 0;
  for (const file of files) {
    const opened = await openSpell(file, io);
    if (typeof opened === "number") {
      bad++;
      io.stdout(`${file}: 1 error\n`);
      continue;
    }
    try {
      const loaded = await loadDocument(displayPath(io.cwd, opened.path), {
        env: io.env,
        validateOnly: true,
        ...(opened.remote ? { remote: opened.remote } : {}),
      });
      for (const w of [...loaded.warnings, ...missingKeys(loaded, io.env)])
        io.stderr(`${file}:${w.position.line}:${w.position.col}: warning: ${w.message}\n`);
      if (!file.startsWith("oci://"))
        for (const line of await unpinned(resolve(io.cwd, opened.path)))
          io.stderr(`${file}:${line}\n`);
      const unchecked = await expectationErrors(loaded);
      if (unchecked.length) throw new SpellErrors(unchecked);
      io.stdout(`${file}: ok\n`);
      for (const line of asksFor(loaded.document)) io.stdout(`${file}: asks before ${line}\n`);
    } catch (err) {
      bad++;
      const count = err instanceof SpellErrors ? err.errors.length : 1;
      io.stderr(`${errorMessage(err)}\n`);
      io.stdout(`${file}: ${count} error${count === 1 ? "" : "s"}\n`);
    }
  }
  return bad ? EXIT.invalid : EXIT.ok;
}

/** `line:col: warning: …` for each registry reference the spell names that no lock pins. */
async function unpinned(path: string): Promise<string[]> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  if (!text.includes("oci://")) return [];
  const { spellFiles, readLock, lockPathFor, parseReference } =
    await import("../registry/index.js");
  const lock = readLock(lockPathFor(path));
  const mine = spellFiles(path).remotes.filter((r) => r.from === basename(path));
  return mine
    .filter((r) => !(lock && Object.hasOwn(lock.remote, r.ref)) && !parseReference(r.ref).digest)
    .map(
      (r) =>
        `${r.line}:${r.col}: warning: ${r.ref} is not pinned: a run fetches whatever its tag names then (spell lock ${basename(path)} pins it)`,
    );
}

/**
 * Each `llm:` (and `llms:` item) of a provider whose API key `spell run` would not find: no
 * `api_key:` written and none of the provider's variables set. A warning, not an error — the
 * file is valid, and it may run where the key is set.
 */
function missingKeys(
  loaded: LoadedDocument,
  env: Readonly<Record<string, string | undefined>>,
): Warning[] {
  const warnings: Warning[] = [];
  const told = new Set<string>();
  const check = (spec: unknown, path: Path): void => {
    const provider =
      typeof spec === "string"
        ? spec.split("/")[0]
        : isObject(spec) && typeof spec["provider"] === "string"
          ? spec["provider"]
          : undefined;
    if (!provider || !Object.hasOwn(PROFILES, provider)) return;
    if (isObject(spec) && typeof spec["api_key"] === "string" && spec["api_key"] !== "") return;
    const vars = PROFILES[provider as keyof typeof PROFILES].keyEnv;
    if (vars.length === 0 || vars.some((name) => env[name])) return;
    const position = loaded.source.position(path);
    const key = `${position.line}:${position.col}`;
    if (told.has(key)) return;
    told.add(key);
    warnings.push({
      message: `${vars.join(" or ")} is not set: spell run would fail, as the ${provider} provider needs an API key (set it, or write api_key: \${env:YOUR_VAR} in the llm block)`,
      position,
    });
  };
  const walk = (node: unknown, path: Path): void => {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...path, i]));
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "llm" || key === "child_llm") check(value, [...path, key]);
        if (key === "llms" && Array.isArray(value))
          value.forEach((item, i) => check(item, [...path, key, i]));
        if (!DATA_KEYS.has(key)) walk(value, [...path, key]);
      }
    }
  };
  walk(loaded.document, []);
  return warnings;
}

/** Keys whose values are the spell's data or schemas, where a key named `llm` is not an LLM. */
const DATA_KEYS = new Set(["state", "inputs", "output_schema", "vars", "extra", "args"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A spell's `tests:` expecting what `spell test` cannot check (a misspelt key): one error per key,
 * at the key, by the runner's own check, so a typo is found before any test runs.
 */
async function expectationErrors(loaded: LoadedDocument): Promise<ConfigError[]> {
  const tests = loaded.kind === "cantrip" ? loaded.document["tests"] : undefined;
  if (!Array.isArray(tests) || tests.length === 0) return [];
  const { unsupportedExpectation } = await import("../conformance/runner.js");
  const errors: ConfigError[] = [];
  for (const [i, test] of tests.entries()) {
    const expect = (test as { expect?: unknown } | null)?.expect;
    if (expect === null || typeof expect !== "object" || Array.isArray(expect)) continue;
    for (const key of Object.keys(expect)) {
      const why = unsupportedExpectation(key);
      if (!why) continue;
      const at = loaded.source.position(["tests", i, "expect", key], { key: true });
      errors.push(new ConfigError("unsupported_expectation", loaded.redactor.redact(why), at));
    }
  }
  return errors;
}

/** What a spell will ask a person for (issue 25): one line per `circle.approve` item. */
function asksFor(doc: Record<string, unknown>): string[] {
  const circle = doc["circle"] as { approve?: unknown; approval_timeout_ms?: unknown } | undefined;
  if (!Array.isArray(circle?.approve)) return [];
  const timeout =
    typeof circle.approval_timeout_ms === "number"
      ? circle.approval_timeout_ms
      : DEFAULT_APPROVAL_TIMEOUT_MS;
  const policy = new ApprovalPolicy(circle.approve as ApprovalRule[]);
  return policy.describe().map((rule) => `${rule} (no answer in ${String(timeout)} ms: denied)`);
}
