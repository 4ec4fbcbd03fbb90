/**
 * Regular expressions that come from a spell, a data set or a model — `result_matches`, a JSON
 * Schema's `pattern` / `patternProperties` (`result_schema`, `inputs:`, `output_schema:`, an MCP
 * server's output schema) — match in linear time: RE2 syntax (re2js), never JavaScript's
 * backtracking RegExp, where `^(\w+\s?)+$` against 32 word characters and `!` holds the process
 * for ever. One implementation for every such place (the `search` gate's worker uses re2js too).
 *
 * RE2 has no lookaround and no backreference: such a pattern is refused with an error saying so,
 * never matched another way. JavaScript's `\uXXXX` and `\u{X}` escapes are read as RE2's `\x{X}`.
 */
import { createRequire } from "node:module";
import type { RE2JS } from "re2js";
import { errorMessage } from "./errors.js";

/**
 * re2js, required on the first pattern compiled (not when this module loads): a spell with no
 * pattern to match (most `spell run`s) reads none of its 190 KB. It stays outside the CLI's
 * bundles, loaded from node_modules like the provider SDKs (scripts/bundle.mjs).
 */
let engine: typeof RE2JS | undefined;
const re2 = (): typeof RE2JS =>
  (engine ??= (createRequire(import.meta.url)("re2js") as { RE2JS: typeof RE2JS }).RE2JS);

export interface LinearPattern {
  readonly source: string;
  /** Whether the pattern matches anywhere in the text (as JavaScript's `test`). */
  test(text: string): boolean;
}

/** A pattern RE2 cannot take, saying why. */
export class NotLinearPattern extends Error {
  constructor(source: string, why: string) {
    super(
      `/${source}/ is not RE2 syntax (patterns match in linear time: no lookaround, no backreferences): ${why}`,
    );
    this.name = "NotLinearPattern";
  }
}

/** `\uXXXX` and `\u{X}` as RE2's `\x{X}`; every other escape kept as written. */
function re2Escapes(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const rest = source.slice(i + 1);
    const u = /^u([0-9A-Fa-f]{4})|^u\{([0-9A-Fa-f]{1,6})\}/.exec(rest);
    if (u) {
      out += `\\x{${u[1] ?? u[2]}}`;
      i += u[0].length;
    } else {
      out += ch + (source[i + 1] ?? "");
      i++;
    }
  }
  return out;
}

/** The pattern compiled for linear-time matching; throws NotLinearPattern when RE2 cannot take it. */
export function linearPattern(source: string): LinearPattern {
  let re: RE2JS;
  try {
    re = re2().compile(re2Escapes(source));
  } catch (err) {
    throw new NotLinearPattern(source, errorMessage(err).replace(/^error parsing regexp: /, ""));
  }
  return { source, test: (text: string) => re.test(text) };
}

/**
 * RE2 in the shape ajv asks of a regular-expression engine: pass as `code: { regExp:
 * linearRegExp }` to every ajv that compiles a schema from a spell, data or a model.
 */
export function linearRegExp(source: string): LinearPattern & { toString(): string } {
  const p = linearPattern(source);
  // ajv keeps one compiled pattern per toString(): each pattern its own.
  return { ...p, toString: () => `re2:${source}` };
}
// What ajv names the engine in code it generates (standalone code only; never run here).
linearRegExp.code = "re2";

/** Options for ajv: its `pattern` and `patternProperties` on the linear engine. */
export const LINEAR_AJV = { code: { regExp: linearRegExp } } as const;
