/** What a loop grammar gets and gives: one loop of the council, mechanically. */
import type { LLM, Message } from "../../core/contract.js";
import type { CouncilCalls } from "../calls.js";
import type { DeliberatingSeat } from "../seats.js";
import type { SeatResponses, TriageOutput } from "../types.js";

export interface RedTeamSeat {
  /** base frame + flavor (red-team-prompts.ts). */
  readonly systemPrompt: string;
  readonly llm: LLM;
}

/** The outcome of a loop: each deliberating seat's position at its end, and the red team's critique. */
export interface LoopOutcome {
  readonly responses: SeatResponses;
  readonly critique: string;
}

export interface LoopContext {
  readonly triage: TriageOutput;
  readonly seats: readonly DeliberatingSeat[];
  readonly redTeam: RedTeamSeat;
  readonly calls: CouncilCalls;
  /** 1-based. */
  readonly loop: number;
  /** The previous loop's outcome; null in loop 1. */
  readonly prior: LoopOutcome | null;
}

export type Grammar = (ctx: LoopContext) => Promise<LoopOutcome>;

export const system = (content: string): Message => ({ role: "system", content });
export const user = (content: string): Message => ({ role: "user", content });
export const assistant = (content: string): Message => ({ role: "assistant", content });

/** Responses keyed by seat, in seat order. */
export function bySeat(
  seats: readonly DeliberatingSeat[],
  texts: readonly string[],
): SeatResponses {
  const out: Record<string, string> = {};
  seats.forEach((s, i) => (out[s.key] = texts[i] ?? ""));
  return Object.freeze(out);
}
