/**
 * The progress lines of a council run on stderr: each call's start, answer or failure with its
 * timing, an empty reply asked again, and warnings — minutes of real models are not silent.
 * And the loops a failed run completed, printed so the deliberation already paid for is kept.
 */
import { describe } from "../council/calls.js";
import type { CompletedLoop, CouncilEvent, CouncilEventListener } from "../council/events.js";

/** A listener printing each event as one line (redacted) through `write`. */
export function councilProgress(
  write: (text: string) => void,
  redact: (text: string) => string,
): CouncilEventListener {
  return (e: CouncilEvent) => {
    const line = progressLine(e, redact);
    if (line) write(redact(line));
  };
}

/** At most this many characters of a reply quoted in a warning (cut after redacting). */
const QUOTED_REPLY = 200;

function progressLine(e: CouncilEvent, redact: (text: string) => string): string {
  if (e.type === "warning") {
    if (e.reply === undefined) return `warning: ${e.message}\n`;
    const quoted = JSON.stringify(redact(e.reply).slice(0, QUOTED_REPLY));
    return `warning: ${e.message}; it answered ${quoted}\n`;
  }
  const at = describe(e.site);
  switch (e.type) {
    case "call_started":
      return `${at}: started (${e.llm})\n`;
    case "call_answered":
      return `${at}: answered in ${Math.round(e.ms)} ms\n`;
    case "call_retry":
      return `${at}: ${e.reason}, asking again\n`;
    case "call_failed":
      return `${at}: failed after ${Math.round(e.ms)} ms\n`;
  }
}

/** The completed loops as text: each seat's position and the red team's critique. */
export function completedLoopsText(loops: readonly CompletedLoop[]): string {
  return loops
    .map((l) => {
      const seats = Object.entries(l.councilResponses).map(([k, v]) => `[${k}]\n${v}\n`);
      return `Loop ${l.loopNumber} (completed before the failure)\n\n${seats.join("\n")}\n[red team]\n${l.redTeamCritique}\n`;
    })
    .join("\n");
}

/** The completed loops in the snake_case of the loop records (for --json). */
export function completedLoopsJson(loops: readonly CompletedLoop[]) {
  return loops.map((l) => ({
    loop_number: l.loopNumber,
    council_responses: { ...l.councilResponses },
    red_team_critique: l.redTeamCritique,
  }));
}
