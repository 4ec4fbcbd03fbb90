/**
 * The TriageOutput rules (brief §4.2) live once, in schemas/triage-output.schema.json. The
 * loader hands the schema's compiled validator to the council runtime as its `TriageCheck`
 * (council/ has no rules of its own), and says each broken rule in the brief's words, the
 * same words the council document's `triage.output` errors use.
 */
import type { ErrorObject } from "ajv";
import type { TriageCheck } from "../council/triage-output.js";
import generated from "../generated/triage-output-validate.js";

/** The rules' messages, for a triage reply and for a council document's `triage.output`. */
export const TRIAGE_RULES = {
  councilSize: "council must have 3-5 seats",
  oneRedTeam: 'council must have exactly one seat with role "red_team"',
  loopCount: "loop_count must be an integer from 2 to 5",
  shortCircuit: 'short_circuit_allowed may only be true when complexity is "simple"',
  blank: "must be a non-blank string",
} as const;

const redTeamsIn = (data: unknown): number =>
  Array.isArray(data)
    ? data.filter((s) => (s as { role?: unknown } | null)?.role === "red_team").length
    : 0;

/** The brief's words for an error of a triage rule; undefined for the others. */
export function ruleMessage(e: ErrorObject): string | undefined {
  const at = e.instancePath;
  const data: unknown = e.data;
  if (at.endsWith("/council") && (e.keyword === "minItems" || e.keyword === "maxItems"))
    return `${TRIAGE_RULES.councilSize} (has ${Array.isArray(data) ? data.length : "?"})`;
  if (at.endsWith("/council") && e.keyword === "contains")
    return `${TRIAGE_RULES.oneRedTeam} (has ${redTeamsIn(data)})`;
  if (at.endsWith("/loop_count") && ["minimum", "maximum", "type"].includes(e.keyword))
    return `${TRIAGE_RULES.loopCount} (is ${JSON.stringify(data)})`;
  if (at.endsWith("/complexity") && e.keyword === "const" && e.schemaPath.includes("/then/"))
    return `${TRIAGE_RULES.shortCircuit} (is ${JSON.stringify(data)})`;
  if (e.keyword === "pattern" && (e.params as { pattern?: string }).pattern === "\\S")
    return TRIAGE_RULES.blank;
  return undefined;
}

const unknownRole = (e: ErrorObject) =>
  e.keyword === "enum" && /\/council\/\d+\/role$/.test(e.instancePath);

/**
 * Drops what only repeats another error: the per-seat "must be equal to constant" of the
 * one-red-team rule (ajv's `contains` reports every seat that is not the red team, valid ones
 * included), and the one-red-team rule's "(has 0)" when a seat's role is unknown — the unknown role may be the red team misspelt. Two red teams
 * stay an error of their own.
 */
export function quieter(errors: ErrorObject[]): ErrorObject[] {
  const anyUnknown = errors.some(unknownRole);
  return errors.filter((e) => {
    if (e.keyword === "const" && e.schemaPath.includes("/contains/")) return false;
    if (e.keyword === "contains" && anyUnknown) return redTeamsIn(e.data) > 0;
    return true;
  });
}

/** One error as `path: message`, the path dotted (`council.0.role`). */
function problem(e: ErrorObject): string {
  const path = e.instancePath.slice(1).replaceAll("/", ".");
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  if (e.keyword === "required") return `${join(path, params.missingProperty)}: missing`;
  if (e.keyword === "additionalProperties")
    return `${join(path, params.additionalProperty)}: unknown key`;
  if (e.keyword === "enum" && allowed)
    return `${path}: must be one of ${allowed.join(", ")} (is ${JSON.stringify(e.data)})`;
  if (path === "" && e.keyword === "type") return "the triage output must be a JSON object";
  return `${path}: ${ruleMessage(e) ?? e.message ?? e.keyword}`;
}

const join = (path: string, key: string | undefined) => (path ? `${path}.${key}` : `${key}`);

/** A compiled validator (ajv's, or the standalone one `npm run gen` writes). */
export type CompiledValidator = ((data: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
};

/** A compiled triage-output validator as the council's check: every problem, `path: message`. */
export function triageCheckOf(validate: CompiledValidator): TriageCheck {
  return (value) => {
    if (validate(value)) return [];
    const errors = quieter(validate.errors ?? []);
    return errors.filter((e) => e.keyword !== "if").map(problem);
  };
}

/** schemas/triage-output.schema.json's rules, compiled by `npm run gen`. */
export const triageCheck: TriageCheck = triageCheckOf(generated as CompiledValidator);
