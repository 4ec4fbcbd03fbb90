import type { ErrorObject } from "ajv";
import { ConfigError } from "../core/errors.js";
import type { Path } from "./source.js";
import { didYouMean } from "./suggest.js";
import { LONGEST_TIMER_MS } from "../core/clock.js";

/** A standalone ajv validator, as scripts/gen.mjs generates one per schema. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export type Locate = (
  path: Path,
  options?: { key?: boolean },
) => { file: string; line: number; col: number };

/** Schema errors as positioned, readable errors; all of them, each said once. */
export function schemaErrors(
  value: unknown,
  locate: Locate,
  validate: SchemaValidator,
): ConfigError[] {
  if (validate(value)) return [];
  const raw = validate.errors ?? [];
  const out = new Map<string, ConfigError>();
  for (const e of prune(raw)) {
    const path = pointer(e.instancePath);
    const under = e.keyword === "additionalProperties" ? misplaced(value, path, e, validate) : "";
    const { message, key } = under
      ? { message: under.message(locate), key: under.key }
      : describe(e, path);
    const position = locate(key ? [...path, key] : path, key ? { key: true } : {});
    const where = path.length
      ? `${path.join(".")}${key ? "." + key : ""}: `
      : key
        ? `${key}: `
        : "";
    const text = `${where}${message}`;
    out.set(`${position.line}:${position.col}:${text}`, new ConfigError("schema", text, position));
  }
  return [...out.values()];
}

/**
 * An unknown key that belongs to the block above it, indented too little (`wards:` at column 0
 * under `circle:`): the key is tried inside the mapping of the key before it, and when the
 * schema allows it there the error says to indent it there, in line with that block's keys.
 */
function misplaced(
  value: unknown,
  path: Path,
  e: ErrorObject,
  validate: SchemaValidator,
): { key: string; message: (locate: Locate) => string } | undefined {
  const key = String((e.params as Record<string, unknown>)["additionalProperty"]);
  const parent = at(value, path);
  if (!isMapping(parent)) return undefined;
  const keys = Object.keys(parent);
  const owner = keys[keys.indexOf(key) - 1];
  if (owner === undefined || !isMapping(parent[owner]) || key in parent[owner]) return undefined;
  let moved: unknown;
  try {
    moved = structuredClone(value);
  } catch {
    return undefined;
  }
  const into = at(moved, path) as Record<string, Record<string, unknown>>;
  into[owner]![key] = into[key];
  delete into[key];
  validate(moved);
  const ownerPointer = [...path, owner]
    .map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`)
    .join("");
  const refused = (validate.errors ?? []).some(
    (x) =>
      x.keyword === "additionalProperties" &&
      x.instancePath === ownerPointer &&
      (x.params as Record<string, unknown>)["additionalProperty"] === key,
  );
  if (refused) return undefined;
  const sibling = Object.keys(parent[owner])[0];
  return {
    key,
    message: (locate) => {
      const self = locate([...path, key], { key: true });
      const head = locate([...path, owner], { key: true });
      const here = path.length ? `in ${path.join(".")}` : "at the top level";
      const first =
        sibling === undefined ? undefined : locate([...path, owner, sibling], { key: true });
      const block = first && first.line > head.line;
      const how = block
        ? `indent it under ${owner}:, in line with ${sibling} (${spaces(first.col - 1)})`
        : `move it into ${owner}`;
      return `unknown key ${here} — indented ${spaces(self.col - 1)}, it is not part of ${owner} (line ${head.line}), where it belongs: ${how}`;
    },
  };
}

const spaces = (n: number): string => `${n} space${n === 1 ? "" : "s"}`;

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function at(value: unknown, path: Path): unknown {
  let node = value;
  for (const seg of path) node = (node as Record<string | number, unknown> | undefined)?.[seg];
  return node;
}

/** Drops the noise of combinators: keep the errors of the branch that matches the value's type. */
function prune(errors: ErrorObject[]): ErrorObject[] {
  const structural = new Set(["if", "anyOf", "oneOf", "propertyNames"]);
  const anyOfPaths = new Set(
    errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath),
  );
  const kept = errors.filter((e) => {
    if (structural.has(e.keyword)) return false;
    // Inside an anyOf, a type mismatch only says "this was the other branch".
    if (e.keyword === "type" && anyOfPaths.has(e.instancePath) && e.schemaPath.includes("anyOf"))
      return false;
    return true;
  });
  for (const path of anyOfPaths) {
    if (!kept.some((e) => e.instancePath.startsWith(path))) {
      kept.push({
        keyword: "anyOf",
        instancePath: path,
        schemaPath: "",
        params: {},
        message: "must be a provider/model string or an llm object",
      });
    }
  }
  return kept;
}

const TOO_LONG = `must be <= ${LONGEST_TIMER_MS} ms (about 24.8 days, the longest a timer can wait)`;

function describe(e: ErrorObject, path: Path): { message: string; key?: string } {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "additionalProperties": {
      const key = String(params["additionalProperty"]);
      const allowed = Object.keys((e.parentSchema?.["properties"] as object | undefined) ?? {});
      // Keys allowed by pattern (a test's `llm`, `child_llm`, ...) are named by their pattern.
      const patterns = Object.keys(
        (e.parentSchema?.["patternProperties"] as object | undefined) ?? {},
      ).map((p) => `any key matching /${p}/`);
      const listed = [...allowed, ...patterns];
      const hint = didYouMean(key, allowed);
      return {
        key,
        message: `unknown key${hint}${listed.length && !hint ? ` (allowed: ${listed.join(", ")})` : ""}`,
      };
    }
    case "required":
      return { message: `missing required key "${String(params["missingProperty"])}"` };
    case "enum": {
      const allowed = (params["allowedValues"] as unknown[]).map(String);
      const value = String(e.data);
      if (e.schemaPath.includes("propertyNames")) {
        return {
          key: String(e.propertyName ?? value),
          message: `unknown gate${didYouMean(String(e.propertyName ?? value), allowed)}`,
        };
      }
      // A council seat's role: the role named and every allowed one (COUNCIL.md).
      if (e.schemaPath.includes("council_role"))
        return {
          message: `unknown role ${JSON.stringify(e.data)}${didYouMean(value, allowed)} (allowed: ${allowed.join(", ")})`,
        };
      const what = e.schemaPath.includes("gate_name")
        ? "gate"
        : e.schemaPath.includes("medium")
          ? "medium"
          : e.schemaPath.includes("provider")
            ? "provider"
            : "value";
      return {
        message: `unknown ${what} ${JSON.stringify(e.data)}${didYouMean(value, allowed) || `; expected one of: ${allowed.join(", ")}`}`,
      };
    }
    case "maxProperties":
    case "minProperties":
      return {
        message: path.includes("wards")
          ? "a ward is one key, e.g. { max_turns: 10 }"
          : path.includes("gates")
            ? "a gate with dependencies is one key, e.g. { read: { root: data } }"
            : (e.message ?? "wrong number of keys"),
      };
    default:
      return { message: valueMessage(e, params) };
  }
}

/** A value of the wrong type (with a YAML 1.1 hint) or beyond a bound; else ajv's message. */
function valueMessage(e: ErrorObject, params: Record<string, unknown>): string {
  if (e.keyword === "type") return (e.message ?? "wrong type") + yaml11Hint(params["type"], e.data);
  // The schemas' maximum of every duration in ms that becomes a timer.
  if (e.keyword === "maximum" && params["limit"] === LONGEST_TIMER_MS) return TOO_LONG;
  return e.message ?? e.keyword;
}

function pointer(instancePath: string): Path {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const YAML11_BOOLEANS = /^(y|yes|n|no|on|off)$/i;

/** `yes`/`on` meant as true: YAML 1.2 (ours) reads them as strings, YAML 1.1 read them as booleans. */
function yaml11Hint(type: unknown, data: unknown): string {
  const wanted = Array.isArray(type) ? type : [type];
  if (!wanted.includes("boolean") || typeof data !== "string" || !YAML11_BOOLEANS.test(data))
    return "";
  const meant = /^(y|yes|on)$/i.test(data);
  return ` (${JSON.stringify(data)} is a string in YAML 1.2; write ${meant}, as YAML 1.1 would have read it)`;
}
