/**
 * PARALLEL (brief §2.4): every deliberating seat answers the same context at once; the red
 * team sees all the answers and critiques; the next loop shows the seats the prior positions
 * and the critique.
 *
 *   seat, loop 1:  [system: seat prompt] [user: reconstructed query]
 *   seat, loop N:  [system: seat prompt] [user: reconstructed query]
 *                  [assistant: prior positions] [user: red team critique + revision instruction]
 *   red team:      [system: base frame + flavor] [user: query + council positions]
 */
import type { Message } from "../../core/contract.js";
import { blocks, formatPositions, INSTRUCTIONS, type DeliberatingSeat } from "../seats.js";
import type { SeatResponses } from "../types.js";
import {
  assistant,
  bySeat,
  system,
  user,
  type Grammar,
  type LoopContext,
  type LoopOutcome,
} from "./grammar.js";

/** A seat's messages for a position: loop 1's, or loop N's after `prior`. */
export function positionMessages(
  seat: DeliberatingSeat,
  query: string,
  prior: LoopOutcome | null,
): Message[] {
  const messages = [system(seat.seat.systemPrompt), user(query)];
  if (prior) {
    messages.push(
      assistant(formatPositions(prior.responses)),
      user(blocks(["RED TEAM CRITIQUE", prior.critique], [null, INSTRUCTIONS.revision])),
    );
  }
  return messages;
}

/** The red team's messages: its prompt, then the query and the council's positions. */
export function redTeamMessages(
  ctx: LoopContext,
  positions: SeatResponses,
  instruction?: string,
): Message[] {
  return [
    system(ctx.redTeam.systemPrompt),
    user(
      blocks(
        ["QUERY", ctx.triage.reconstructedQuery],
        ["COUNCIL POSITIONS", formatPositions(positions)],
        [null, instruction],
      ),
    ),
  ];
}

/** Every deliberating seat states its position at once (one phase, concurrent calls). */
export async function positions(ctx: LoopContext, step = "position"): Promise<SeatResponses> {
  const texts = await ctx.calls.askAll(
    ctx.seats.map((seat) => ({
      llm: seat.llm,
      messages: positionMessages(seat, ctx.triage.reconstructedQuery, ctx.prior),
      site: { phase: "seat" as const, loop: ctx.loop, seat: seat.key, step },
    })),
  );
  return bySeat(ctx.seats, texts);
}

export const parallel: Grammar = async (ctx) => {
  const responses = await positions(ctx);
  const critique = await ctx.calls.ask({
    llm: ctx.redTeam.llm,
    messages: redTeamMessages(ctx, responses),
    site: { phase: "red_team", loop: ctx.loop, step: "critique" },
  });
  return { responses, critique };
};
