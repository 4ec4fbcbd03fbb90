/**
 * JSON Schemas written in a spell (`inputs:`, `output_schema:`), checked at run time with ajv.
 * ajv is loaded on first use (a spell without them loads none of it), and each schema is
 * compiled once per process. Their `pattern`s match a caller's inputs and a model's answer in
 * linear time (RE2: core/linear-pattern.ts); one RE2 cannot take is a schema that does not compile.
 */
import type { ErrorObject, ValidateFunction } from "ajv";

export interface SchemaOptions {
  /** Fill in `default:` values of missing properties. */
  useDefaults?: boolean;
}

type AjvClass = new (opts: Record<string, unknown>) => {
  compile(schema: object): ValidateFunction;
};
let ajvs: Promise<{ plain: InstanceType<AjvClass>; defaults: InstanceType<AjvClass> }> | undefined;
const compiled = new Map<string, ValidateFunction>();

/** A validator of the schema; a schema ajv cannot compile is a TypeError saying why. */
export async function compileSchema(
  schema: Readonly<Record<string, unknown>>,
  options: SchemaOptions = {},
): Promise<ValidateFunction> {
  ajvs ??= Promise.all([import("ajv/dist/2020.js"), import("./linear-pattern.js")]).then(
    ([m, l]) => {
      // CommonJS through ESM: the class is `default`, or `default.default` under some loaders.
      const mod = m as unknown as { default: AjvClass | { default: AjvClass } };
      const Class = typeof mod.default === "function" ? mod.default : mod.default.default;
      const base = { strict: false, allErrors: false, validateFormats: false, ...l.LINEAR_AJV };
      return { plain: new Class(base), defaults: new Class({ ...base, useDefaults: true }) };
    },
  );
  const { plain, defaults } = await ajvs;
  const key = `${options.useDefaults ? "d" : "p"}${JSON.stringify(schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = (options.useDefaults ? defaults : plain).compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Why the value does not match, naming the field (`input words: must be >= 10`); null when it does. */
export function schemaProblem(
  validate: ValidateFunction,
  value: unknown,
  what: string,
): string | null {
  if (validate(value)) return null;
  const first = validate.errors?.[0];
  return first
    ? `${what}${fieldOf(first)}: ${messageOf(first)}`
    : `${what}: does not match its schema`;
}

function fieldOf(e: ErrorObject): string {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (e.keyword === "required")
    path.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === "additionalProperties")
    path.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return path.length ? ` ${path.join(".")}` : "";
}

function messageOf(e: ErrorObject): string {
  if (e.keyword === "required") return "is required";
  if (e.keyword === "additionalProperties") return "is not a known field";
  if (e.keyword === "enum")
    return `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(", ")}`;
  return e.message ?? "does not match";
}
