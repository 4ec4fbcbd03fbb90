/**
 * The triage output's JSON → the runtime TriageOutput. Its rules are not here: they live once,
 * in schemas/triage-output.schema.json, and the loader hands their compiled validator to the
 * engine as a `TriageCheck` (src/spell/triage-rules.ts).
 */
import type { CouncilSeat, TriageOutput } from "./types.js";

/** Every problem of a parsed triage output, as `path: message`; empty when it is valid. */
export type TriageCheck = (value: unknown) => string[];

type Obj = Record<string, unknown>;

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
