/**
 * A gate written in code, its arguments typed from its schema (`gate({ name, description,
 * parameters, execute })`). The schema is either a JSON Schema literal — its TypeScript type
 * derived by json-schema-to-ts's `FromSchema` — or a schema object of a library that speaks
 * Standard JSON Schema (zod 4.2 and later, for one), whose own output type it takes. Either way
 * the arguments are checked against the schema before `execute` runs: a call that does not match
 * is an error the entity reads, never a call with arguments of another shape.
 */
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { compileSchema, schemaProblem } from "../../core/json-schema.js";
import { ConfigError } from "../../core/errors.js";
import type { Gate, GateContext, ParameterSchema } from "../gate.js";

/** A JSON Schema of an object: what a gate's parameters are. */
export type ObjectJsonSchema = Exclude<JSONSchema, boolean> & { readonly type: "object" };

/** The arguments `execute` receives for a JSON Schema `S` (json-schema-to-ts's mapping). */
export type GateArgs<S extends ObjectJsonSchema> = FromSchema<S>;

type Outcome<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[];
    };

/**
 * A schema object that validates and describes itself as JSON Schema (the Standard Schema
 * `~standard` property with `jsonSchema`): zod 4.2 and later, and other libraries that offer it.
 */
export interface StandardJsonSchemaLike<Output = unknown> {
  readonly "~standard": {
    readonly validate: (value: unknown) => Outcome<Output> | Promise<Outcome<Output>>;
    readonly jsonSchema: {
      readonly input: (options: { readonly target: "draft-2020-12" }) => Record<string, unknown>;
    };
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/** What a Standard schema's `validate` gives for valid input. */
export type StandardOutput<S> =
  S extends StandardJsonSchemaLike<infer O>
    ? NonNullable<S["~standard"]["types"]> extends { readonly output: infer T }
      ? T
      : O
    : never;

/** A gate in code: the fields the entity sees, and what runs when it calls the gate. */
export interface GateDefinition<S, Args> {
  /** The name the entity calls it by: a letter or `_`, then letters, digits or `_`. */
  readonly name: string;
  /** What the gate does, as the entity reads it in the tool list. */
  readonly description: string;
  /** The arguments' schema: a JSON Schema of an object, or a Standard JSON Schema object. */
  readonly parameters: S;
  /** PROD-5: the result leaves the working context after the next turn; the loom keeps it. */
  readonly ephemeral?: boolean;
  /** Runs the call with arguments that matched the schema; its value (or rejection) is the result. */
  execute(args: Args, ctx: GateContext): unknown;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A gate from a definition whose arguments are typed by its schema:
 *
 * ```ts
 * const add = gate({
 *   name: "add",
 *   description: "Add two numbers.",
 *   parameters: {
 *     type: "object",
 *     properties: { a: { type: "number" }, b: { type: "number" } },
 *     required: ["a", "b"],
 *     additionalProperties: false,
 *   },
 *   execute: ({ a, b }) => a + b, // a: number, b: number
 * });
 * ```
 */
export function gate<const S extends StandardJsonSchemaLike>(
  definition: GateDefinition<S, NoInfer<StandardOutput<S>>>,
): Gate;
export function gate<const S extends ObjectJsonSchema>(
  definition: GateDefinition<S, NoInfer<GateArgs<S>>>,
): Gate;
export function gate(
  definition: GateDefinition<ObjectJsonSchema | StandardJsonSchemaLike, unknown>,
): Gate {
  const { name, description, parameters, ephemeral } = definition;
  if (typeof name !== "string" || !NAME.test(name))
    throw new ConfigError(
      "bad_gate",
      `gate name ${JSON.stringify(name)}: a letter or _, then letters, digits or _`,
    );
  if (typeof description !== "string")
    throw new ConfigError("bad_gate", `gate ${name}: description must be text`);
  const standard = isStandard(parameters) ? parameters["~standard"] : undefined;
  const schema = standard
    ? withoutDialect(standard.jsonSchema.input({ target: "draft-2020-12" }))
    : (JSON.parse(JSON.stringify(parameters)) as Record<string, unknown>);
  if (schema["type"] !== "object")
    throw new ConfigError(
      "bad_gate",
      `gate ${name}: parameters must be the schema of an object (type: object)`,
    );
  const check = standard
    ? async (args: unknown): Promise<unknown> => {
        const outcome = await standard.validate(args);
        if (outcome.issues) throw new Error(`${name}: ${issuesText(outcome.issues)}`);
        return outcome.value;
      }
    : async (args: unknown): Promise<unknown> => {
        const problem = schemaProblem(await compileSchema(schema), args, "argument");
        if (problem) throw new Error(`${name}: ${problem}`);
        return args;
      };
  return {
    name,
    description,
    parameters: schema as unknown as ParameterSchema,
    ...(ephemeral ? { ephemeral: true } : {}),
    execute: async (args, ctx) => definition.execute(await check(args), ctx),
  };
}

function isStandard(value: unknown): value is StandardJsonSchemaLike {
  const std = (value as { "~standard"?: unknown } | null)?.["~standard"];
  return typeof std === "object" && std !== null && "validate" in std && "jsonSchema" in std;
}

/** The schema as a tool's parameters: without `$schema`, which providers do not expect. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function issuesText(
  issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[],
): string {
  return issues
    .slice(0, 3)
    .map((i) => {
      const path = (i.path ?? [])
        .map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))
        .map(String)
        .join(".");
      return path ? `argument ${path}: ${i.message}` : i.message;
    })
    .join("; ");
}
