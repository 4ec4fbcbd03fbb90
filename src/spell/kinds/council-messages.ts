/**
 * The council schema's validator, with the brief's own words for the TriageOutput rules
 * (§4.2) instead of ajv's generic ones — the same messages the runtime checks give.
 */
import type { ErrorObject } from "ajv";
import { TRIAGE_RULES } from "../../council/triage-check.js";
import generated from "../../generated/council-validate.js";
import type { SchemaValidator } from "./kind.js";

function ruleMessage(e: ErrorObject): string | undefined {
  const at = e.instancePath;
  const data: unknown = e.data;
  if (at.endsWith("/council") && (e.keyword === "minItems" || e.keyword === "maxItems"))
    return `${TRIAGE_RULES.councilSize} (has ${Array.isArray(data) ? data.length : "?"})`;
  if (at.endsWith("/council") && e.keyword === "contains") {
    const n = Array.isArray(data)
      ? data.filter((s) => (s as { role?: unknown } | null)?.role === "red_team").length
      : 0;
    return `${TRIAGE_RULES.oneRedTeam} (has ${n})`;
  }
  if (at.endsWith("/loop_count") && ["minimum", "maximum", "type"].includes(e.keyword))
    return `${TRIAGE_RULES.loopCount} (is ${JSON.stringify(data)})`;
  if (at.endsWith("/complexity") && e.keyword === "const" && e.schemaPath.includes("/then/"))
    return `${TRIAGE_RULES.shortCircuit} (is ${JSON.stringify(data)})`;
  if (e.keyword === "pattern" && (e.params as { pattern?: string }).pattern === "\\S")
    return TRIAGE_RULES.blank;
  return undefined;
}

const validateCouncil = generated as SchemaValidator;

const unknownRole = (e: ErrorObject) =>
  e.keyword === "enum" && /\/council\/\d+\/role$/.test(e.instancePath);

/**
 * Drops what only repeats another error: the per-seat "must be equal to constant" of the
 * one-red-team rule (ajv's `contains` reports every seat that is not the red team, valid ones
 * included), and that rule's "(has 0)" when a seat's role is unknown — the unknown role may
 * be the red team misspelt. Two red teams stay an error of their own.
 */
function quieter(errors: ErrorObject[]): ErrorObject[] {
  const anyUnknown = errors.some(unknownRole);
  return errors.filter((e) => {
    if (e.keyword === "const" && e.schemaPath.includes("/contains/")) return false;
    if (e.keyword === "contains" && anyUnknown) {
      const data: unknown = e.data;
      const redTeams = Array.isArray(data)
        ? data.filter((s) => (s as { role?: unknown } | null)?.role === "red_team").length
        : 0;
      return redTeams > 0;
    }
    return true;
  });
}

/** Validates a council document; errors of triage rules carry the brief's words. */
export const councilValidator: SchemaValidator = Object.assign(
  (data: unknown): boolean => {
    const ok = validateCouncil(data);
    const errors = quieter(validateCouncil.errors ?? []);
    for (const e of errors) e.message = ruleMessage(e) ?? e.message;
    councilValidator.errors = ok ? null : errors;
    return ok;
  },
  { errors: null as ErrorObject[] | null },
);
