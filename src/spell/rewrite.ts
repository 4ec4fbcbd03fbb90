import { isMap, isPair, isScalar, isSeq, type Scalar } from "yaml";
import { ConfigError } from "../core/errors.js";
import type { Redactor } from "../core/redact.js";
import { walk, type SpellSource } from "./source.js";

export interface Warning {
  message: string;
  position: { file: string; line: number; col: number };
}

/** Old words of spec v0.1 accepted with a warning that names the current word. */
const TOP_LEVEL_ALIASES: Readonly<Record<string, string>> = { crystal: "llm", call: "identity" };
const GATE_ALIASES: Readonly<Record<string, string>> = {
  call_agent: "call_entity",
  call_agent_batch: "call_entity_batch",
};

/** The new word for an old one; own keys only (`__proto__` and `constructor` are no old words). */
function aliasOf(aliases: Readonly<Record<string, string>>, word: unknown): string | undefined {
  const key = String(word);
  return Object.hasOwn(aliases, key) ? aliases[key] : undefined;
}

/** Renames old words in place, on the document, so positions still point at what was written. */
export function renameOldWords(source: SpellSource, warnings: Warning[]): void {
  // A plain spell's value (source.ts) tells at once that it has no old word, without its document.
  const plain = source.plainValue();
  if (plain !== undefined && !holdsOldWord(plain)) return;
  const root = source.doc.contents;
  if (!isMap(root)) return;
  for (const pair of root.items) {
    if (!isScalar(pair.key)) continue;
    const renamed = aliasOf(TOP_LEVEL_ALIASES, pair.key.value);
    if (!renamed) continue;
    warn(
      source,
      pair.key,
      `"${String(pair.key.value)}" is the old word for "${renamed}"; write ${renamed}:`,
      warnings,
    );
    if (root.has(renamed)) {
      throw new ConfigError(
        "duplicate_alias",
        `both "${String(pair.key.value)}" and "${renamed}" are given`,
        pos(source, pair.key),
      );
    }
    pair.key.value = renamed;
  }
  const gates = root.getIn(["circle", "gates"], true);
  if (!isSeq(gates)) return;
  for (const item of gates.items) {
    const scalar = isScalar(item)
      ? item
      : isMap(item) && isPair(item.items[0]) && isScalar(item.items[0].key)
        ? item.items[0].key
        : null;
    if (!scalar) continue;
    const renamed = aliasOf(GATE_ALIASES, scalar.value);
    if (!renamed) continue;
    warn(
      source,
      scalar,
      `gate "${String(scalar.value)}" is the old name of "${renamed}"`,
      warnings,
    );
    scalar.value = renamed;
  }
}

const OLD_WORDS = new Set([...Object.keys(TOP_LEVEL_ALIASES), ...Object.keys(GATE_ALIASES)]);

/** Whether an old word is a key or a string anywhere in `value` (more than renameOldWords renames). */
function holdsOldWord(value: unknown): boolean {
  if (typeof value === "string") return OLD_WORDS.has(value);
  if (Array.isArray(value)) return value.some(holdsOldWord);
  if (value === null || typeof value !== "object") return false;
  for (const [key, item] of Object.entries(value))
    if (OLD_WORDS.has(key) || holdsOldWord(item)) return true;
  return false;
}

const ENV = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `${env:NAME}` and `${env:NAME:-default}` in any string value. A value that came from the
 * environment is a secret by default (PROD-8): it is handed to the redactor.
 */
export function interpolateEnv(
  source: SpellSource,
  env: NodeJS.ProcessEnv,
  redactor: Redactor,
  errors: ConfigError[],
): void {
  // A value holds `${` only where the text does, or where a double-quoted escape (\x24{) or
  // line join made one: a spell with neither has nothing to interpolate nor to warn about.
  if (!source.text.includes("${") && !source.text.includes("\\")) return;
  walk(source.doc.contents, {
    value(node) {
      if (typeof node.value !== "string" || !node.value.includes("${")) return;
      const almost = almostEnv(node.value);
      if (almost) {
        errors.push(new ConfigError("env_syntax", almost.message, at(source, node, almost.index)));
        return;
      }
      node.value = node.value.replace(ENV, (_match, name: string, fallback: string | undefined) => {
        // Only the environment's own keys: ${env:constructor} is not Object.prototype's.
        const value = Object.hasOwn(env, name) ? env[name] : undefined;
        if (typeof value === "string" && value !== "") {
          redactor.add(value);
          return value;
        }
        if (fallback !== undefined) return fallback;
        errors.push(
          new ConfigError(
            "env_missing",
            `environment variable ${name} is not set (write \${env:${name}:-default} to give a default)`,
            pos(source, node),
          ),
        );
        return "";
      });
    },
  });
}

/**
 * The values of every `${env:NAME}` a text names (own keys of `env` only): what a run of that
 * text may print, for outputs that do not go through the loaded document's redactor (PROD-8).
 */
export function envSecretsIn(text: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(ENV)) {
    const name = match[1]!;
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (typeof value === "string" && value !== "") out.push(value);
  }
  return out;
}

/**
 * A `${…}` that was meant as `${env:NAME}` but is not one: `${ENV:X}` (another case of env) or
 * `${env:` without its closing brace or with a name that is not one. Kept as text, it would pass
 * silently; other `${…}` (a shell's `${HOME:-x}`, JavaScript's template `${a}`) are left alone.
 */
export function almostEnv(text: string): { message: string; index: number } | undefined {
  for (const m of text.matchAll(/\$\{(env):/gi)) {
    const index = m.index;
    const word = m[1]!;
    const rest = text.slice(index);
    const shown = /^\$\{[^}\s]*\}?/.exec(rest)![0];
    if (word !== "env") {
      return {
        index,
        message: `${shown} is not interpolated: write \${env:${shown.slice(2 + word.length + 1).replace(/\}$/, "")}} (env in lower case)`,
      };
    }
    if (new RegExp(`^${ENV.source}`).test(rest)) continue;
    return {
      index,
      message: rest.includes("}")
        ? `${shown} is not an environment variable reference: write \${env:NAME} or \${env:NAME:-default}, NAME of letters, digits and _`
        : `${shown} is not closed: write \${env:NAME} with its closing }`,
    };
  }
  return undefined;
}

/** The position of character `index` of a scalar's value, when the source shows it as written. */
function at(source: SpellSource, node: Scalar, index: number) {
  const start = node.range?.[0] ?? 0;
  const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE" ? 1 : 0;
  const value = String(node.value);
  const written = source.text.slice(start + quoted, start + quoted + index);
  return source.at(written === value.slice(0, index) ? start + quoted + index : start);
}

function pos(source: SpellSource, node: Scalar) {
  return source.at(node.range?.[0] ?? 0);
}

function warn(source: SpellSource, node: Scalar, message: string, warnings: Warning[]): void {
  warnings.push({ message, position: pos(source, node) });
}
