/**
 * A spell called like a function (issue 26): its named inputs checked against `inputs:` (a JSON
 * Schema; defaults filled in) before any cast, then put into the intent by plain substitution.
 * Every surface — `spell run --input`, `POST /cast`, MCP, the TypeScript API — goes through
 * `castIntent`, so a call is checked the same way everywhere.
 */
import { ConfigError } from "../core/errors.js";
import { isJsonObject } from "../core/json.js";
import { compileSchema, schemaProblem } from "../core/json-schema.js";

/** What a caller gives: named inputs, and/or an intent of its own. */
export interface SpellCall {
  inputs?: Readonly<Record<string, unknown>> | undefined;
  /** Replaces the spell's `intent:` template (substituted the same way). */
  intent?: string | undefined;
}

/** The part of a spell a call needs. */
export interface CallableSpell {
  inputs?: Readonly<Record<string, unknown>> | undefined;
  intent?: string | undefined;
}

/** The schema of a call's arguments: the spell's `inputs:`, or one `intent` string. */
export function callSchema(spell: CallableSpell): Record<string, unknown> {
  return spell.inputs
    ? { ...spell.inputs }
    : {
        type: "object",
        properties: { intent: { type: "string", minLength: 1, description: "What to do." } },
        required: ["intent"],
      };
}

/**
 * The intent a call casts. Inputs are checked against the spell's `inputs:` (defaults filled);
 * a bad one is a ConfigError `bad_input` naming the field, thrown before anything is cast.
 */
export async function castIntent(spell: CallableSpell, call: SpellCall): Promise<string> {
  const given = call.inputs;
  if (!spell.inputs) {
    if (given && Object.keys(given).length)
      throw new ConfigError(
        "bad_input",
        `this spell declares no inputs:, so it takes none (got ${Object.keys(given).join(", ")})`,
      );
    const intent = call.intent ?? spell.intent;
    if (!intent) throw new ConfigError("missing_intent", "no intent: give one, or write intent:");
    return intent;
  }
  const values = await checkInputs(spell.inputs, given ?? {});
  const template = call.intent ?? spell.intent;
  if (!template) throw new ConfigError("missing_intent", "no intent: give one, or write intent:");
  // A declared input given no value reads as "" (it is an input, not text to leave as written).
  const declared = (spell.inputs["properties"] ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(declared)) if (!(name in values)) values[name] = undefined;
  return renderIntent(template, values);
}

/** The inputs checked against the schema, defaults filled in (a copy; the caller's is untouched). */
export async function checkInputs(
  schema: Readonly<Record<string, unknown>>,
  given: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  if (!isJsonObject(given)) throw new ConfigError("bad_input", "inputs must be a JSON object");
  const values = structuredClone(given) as Record<string, unknown>;
  const validate = await compileSchema(schema, { useDefaults: true });
  const problem = schemaProblem(validate, values, "input");
  if (problem) throw new ConfigError("bad_input", problem);
  return values;
}

/** A `{{name}}` of a template. */
const PLACE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The names a template's `{{name}}`s use, in order, each once. */
export function templateNames(template: string): string[] {
  return [...new Set([...template.matchAll(PLACE)].map((m) => m[1]!))];
}

/**
 * `{{name}}` → the input's value: a string as it is, anything else as JSON; a declared input
 * with no value → "". One pass over the template: what a value brings in is never read again
 * as a template. A name that is not an input stays as written.
 */
export function renderIntent(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACE, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(values, name)) return whole;
    const value = values[name];
    if (value === undefined || value === null) return "";
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

/**
 * `--input key=value` pairs → inputs, each value read as the schema's type for its key says
 * (integer, number, boolean, object/array as JSON; a string as it is). The check comes after.
 */
export function parseInputPairs(
  schema: Readonly<Record<string, unknown>> | undefined,
  pairs: readonly string[],
): Record<string, unknown> {
  const props = (schema?.["properties"] ?? {}) as Record<string, { type?: unknown } | undefined>;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ConfigError("bad_input", `--input ${pair}: write key=value`);
    const key = pair.slice(0, eq);
    const text = pair.slice(eq + 1);
    const own = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
    out[key] = readAs(own?.type, text);
  }
  return out;
}

function readAs(type: unknown, text: string): unknown {
  const types = Array.isArray(type) ? type : [type];
  if (types.includes("string") || type === undefined) return text;
  if (types.includes("integer") || types.includes("number")) {
    const n = Number(text);
    if (text.trim() !== "" && Number.isFinite(n)) return n;
  }
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Left as text: the schema check names the field and what it wanted.
    return text;
  }
}
