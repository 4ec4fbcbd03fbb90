/**
 * The TriageOutput checks, written by hand so the runtime needs no generated validator. They
 * mirror schemas/triage-output.schema.json (tests/council/triage.test.ts, "the hand-written checks and the
 * schema agree", runs both on the same cases and keeps them in step) and say each broken rule in the brief's words (§4.2).
 */
import {
  COMPLEXITY_DOMAINS,
  COUNCIL_ROLES,
  LOOP_GRAMMARS,
  RED_TEAM_FLAVOR_NAMES,
  type CouncilSeat,
  type TriageOutput,
} from "./types.js";

/** The rules' messages; the spell loader reuses them for the schema's errors of `triage.output`. */
export const TRIAGE_RULES = {
  councilSize: "council must have 3-5 seats",
  oneRedTeam: 'council must have exactly one seat with role "red_team"',
  loopCount: "loop_count must be an integer from 2 to 5",
  shortCircuit: 'short_circuit_allowed may only be true when complexity is "simple"',
  blank: "must be a non-blank string",
} as const;

const KEYS = new Set([
  "reconstructed_query",
  "complexity",
  "short_circuit_allowed",
  "council",
  "loop_grammar",
  "loop_count",
  "red_team_flavor",
  "allow_early_exit",
  "synthesis_instruction",
]);
const SEAT_KEYS = new Set(["role", "system_prompt", "model_hint"]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === "string" && /\S/.test(v);

/** Every problem of a parsed triage reply, as `path: message`; empty when it is valid. */
export function triageProblems(value: unknown): string[] {
  if (!isObj(value)) return ["the triage output must be a JSON object"];
  const out: string[] = [];
  for (const k of Object.keys(value)) if (!KEYS.has(k)) out.push(`${k}: unknown key`);
  for (const k of ["reconstructed_query", "synthesis_instruction"])
    if (!isText(value[k])) out.push(`${k}: ${TRIAGE_RULES.blank}`);
  oneOf(out, value, "complexity", COMPLEXITY_DOMAINS);
  oneOf(out, value, "loop_grammar", LOOP_GRAMMARS);
  oneOf(out, value, "red_team_flavor", RED_TEAM_FLAVOR_NAMES);
  for (const k of ["short_circuit_allowed", "allow_early_exit"])
    if (k in value && typeof value[k] !== "boolean") out.push(`${k}: must be true or false`);
  const n = value["loop_count"];
  if (typeof n !== "number" || !Number.isInteger(n) || n < 2 || n > 5)
    out.push(`loop_count: ${TRIAGE_RULES.loopCount} (is ${JSON.stringify(n) ?? "missing"})`);
  if (value["short_circuit_allowed"] === true && value["complexity"] !== "simple")
    out.push(
      `complexity: ${TRIAGE_RULES.shortCircuit} (is ${JSON.stringify(value["complexity"])})`,
    );
  out.push(...councilProblems(value["council"]));
  return out;
}

function oneOf(out: string[], value: Obj, key: string, allowed: readonly string[]): void {
  const v = value[key];
  if (typeof v !== "string" || !allowed.includes(v))
    out.push(`${key}: must be one of ${allowed.join(", ")} (is ${JSON.stringify(v) ?? "missing"})`);
}

function councilProblems(council: unknown): string[] {
  if (!Array.isArray(council)) return [`council: must be a list of seats`];
  const out: string[] = [];
  if (council.length < 3 || council.length > 5)
    out.push(`council: ${TRIAGE_RULES.councilSize} (has ${council.length})`);
  const redTeams = council.filter((s) => isObj(s) && s["role"] === "red_team").length;
  if (redTeams !== 1) out.push(`council: ${TRIAGE_RULES.oneRedTeam} (has ${redTeams})`);
  council.forEach((seat: unknown, i) => {
    const at = `council.${i}`;
    if (!isObj(seat))
      return out.push(`${at}: a seat must be an object with role and system_prompt`);
    for (const k of Object.keys(seat)) if (!SEAT_KEYS.has(k)) out.push(`${at}.${k}: unknown key`);
    const role = seat["role"];
    if (typeof role !== "string" || !(COUNCIL_ROLES as readonly string[]).includes(role))
      out.push(
        `${at}.role: must be one of ${COUNCIL_ROLES.join(", ")} (is ${JSON.stringify(role) ?? "missing"})`,
      );
    if (!isText(seat["system_prompt"])) out.push(`${at}.system_prompt: ${TRIAGE_RULES.blank}`);
    const hint = seat["model_hint"];
    if (hint !== undefined && hint !== null && typeof hint !== "string")
      out.push(`${at}.model_hint: must be a model id or null`);
    return undefined;
  });
  return out;
}

/** The snake_case triage JSON (already checked) → the runtime TriageOutput, defaults applied. */
export function toTriageOutput(value: Obj): TriageOutput {
  const council = (value["council"] as Obj[]).map((s): CouncilSeat => ({
    role: s["role"] as CouncilSeat["role"],
    systemPrompt: s["system_prompt"] as string,
    modelHint: typeof s["model_hint"] === "string" ? s["model_hint"] : null,
  }));
  return Object.freeze({
    reconstructedQuery: value["reconstructed_query"] as string,
    complexity: value["complexity"] as TriageOutput["complexity"],
    shortCircuitAllowed: value["short_circuit_allowed"] === true,
    council: Object.freeze(council),
    loopGrammar: value["loop_grammar"] as TriageOutput["loopGrammar"],
    loopCount: value["loop_count"] as number,
    redTeamFlavor: value["red_team_flavor"] as TriageOutput["redTeamFlavor"],
    allowEarlyExit: value["allow_early_exit"] !== false,
    synthesisInstruction: value["synthesis_instruction"] as string,
  });
}
