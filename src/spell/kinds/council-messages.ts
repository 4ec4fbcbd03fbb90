/**
 * The council schema's validator, with the brief's own words for the TriageOutput rules
 * (§4.2) instead of ajv's generic ones — the same messages the runtime checks give.
 */
import type { ErrorObject } from "ajv";
import generated from "../../generated/council-validate.js";
import { quieter, ruleMessage } from "../triage-rules.js";
import type { SchemaValidator } from "./kind.js";

const validateCouncil = generated as SchemaValidator;

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
