/** Synthesis (brief §2.4): one call turns the deliberation into the unified final response. */
import type { LLM } from "../core/contract.js";
import type { CouncilCalls } from "./calls.js";
import type { LoopOutcome } from "./grammars/grammar.js";
import { formatPositions } from "./seats.js";
import type { TriageOutput } from "./types.js";

/** Every loop's positions and critique, in order. */
export function deliberationSummary(loops: readonly LoopOutcome[]): string {
  return loops
    .map(
      (l, i) =>
        `LOOP ${i + 1}\n\n${formatPositions(l.responses)}\n\n[red_team critique]\n${l.critique}`,
    )
    .join("\n\n");
}

export function synthesisPrompt(
  triage: TriageOutput,
  userQuery: string,
  loops: readonly LoopOutcome[],
): string {
  return `You are synthesizing the output of a deliberative council.

ORIGINAL USER QUERY:
${userQuery}

RECONSTRUCTED QUERY (used by council):
${triage.reconstructedQuery}

COUNCIL DELIBERATION:
${deliberationSummary(loops)}

SYNTHESIS INSTRUCTION:
${triage.synthesisInstruction}

Produce the final response. Do not mention the council, the deliberation process, or that multiple perspectives were consulted. Speak directly to the user as a unified voice.`;
}

export function synthesize(
  llm: LLM,
  calls: CouncilCalls,
  triage: TriageOutput,
  userQuery: string,
  loops: readonly LoopOutcome[],
): Promise<string> {
  return calls.ask({
    llm,
    messages: [{ role: "user", content: synthesisPrompt(triage, userQuery, loops) }],
    site: { phase: "synthesis" },
  });
}
