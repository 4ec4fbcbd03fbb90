/** The executor's view of the seats: keys, message text blocks and the instructions it adds. */
import type { LLM } from "../core/contract.js";
import type { CouncilSeat, SeatResponses } from "./types.js";

/** A deliberating seat (every seat but the red team's), with its key and its LLM. */
export interface DeliberatingSeat {
  /** The role, or `role#n` (n counted from 1 in seat order) when two seats share a role. */
  readonly key: string;
  readonly seat: CouncilSeat;
  readonly llm: LLM;
}

/** Keys for seats: a role alone while it is unique, `role#n` for every seat of a shared role. */
export function seatKeys(seats: readonly CouncilSeat[]): string[] {
  const total = new Map<string, number>();
  for (const s of seats) total.set(s.role, (total.get(s.role) ?? 0) + 1);
  const seen = new Map<string, number>();
  return seats.map((s) => {
    const n = (seen.get(s.role) ?? 0) + 1;
    seen.set(s.role, n);
    return (total.get(s.role) ?? 0) > 1 ? `${s.role}#${n}` : s.role;
  });
}

/** Positions as one text: a `[seat]` header per seat, in seat order. */
export function formatPositions(responses: SeatResponses): string {
  return Object.entries(responses)
    .map(([key, text]) => `[${key}]\n${text}`)
    .join("\n\n");
}

/** What the executor adds to a seat's or the red team's messages (mechanical, never semantic). */
export const INSTRUCTIONS = {
  revision:
    "Revise your position in light of the Red Team critique above. Address each valid objection directly; keep what survives it.",
  defense:
    "Defend your position against the Red Team attack above: refute what is wrong in it, concede and repair what is right.",
  sequentialRevision:
    "Revise the current draft, incorporating the Red Team critique. Return the complete revised draft.",
  debateAttack: "Identify the weakest position(s) above and attack them.",
  finalCritique: "This draft is the complete output of this loop: give your final critique of it.",
} as const;

/** `HEADER:\ntext` blocks joined by blank lines, empty texts left out. */
export function blocks(
  ...parts: [header: string | null, text: string | null | undefined][]
): string {
  return parts
    .filter(([, text]) => text !== null && text !== undefined && text !== "")
    .map(([header, text]) => (header ? `${header}:\n${text}` : (text as string)))
    .join("\n\n");
}
