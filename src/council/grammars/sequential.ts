/**
 * SEQUENTIAL (brief §2.4): the first deliberating seat drafts, the red team attacks, the next
 * seat revises with the critique, and so on through the seats; the red team's attack on the
 * last seat's revision is the loop's final critique. Loop N > 1 starts from the prior loop's
 * final draft and final critique.
 *
 *   first seat:       [system: seat prompt] [user: base context]
 *   subsequent seats: [system: seat prompt] [user: base context + accumulated draft + running critique]
 *   red team:         [system: base frame + flavor] [user: query + the draft (+ final-critique note)]
 *
 * Base context: the reconstructed query. Accumulated draft: the latest seat's draft. Running
 * critique: the red team's latest critique (of that draft).
 */
import type { Message } from "../../core/contract.js";
import { blocks, INSTRUCTIONS, type DeliberatingSeat } from "../seats.js";
import { bySeat, system, user, type Grammar } from "./grammar.js";

export function draftMessages(
  seat: DeliberatingSeat,
  query: string,
  draft: string | null,
  critique: string | null,
): Message[] {
  const content =
    draft === null
      ? query
      : blocks(
          [null, query],
          ["CURRENT DRAFT", draft],
          ["RED TEAM CRITIQUE", critique],
          [null, INSTRUCTIONS.sequentialRevision],
        );
  return [system(seat.seat.systemPrompt), user(content)];
}

export const sequential: Grammar = async (ctx) => {
  const query = ctx.triage.reconstructedQuery;
  const priorTexts = ctx.prior ? Object.values(ctx.prior.responses) : [];
  let draft: string | null = priorTexts.length ? (priorTexts[priorTexts.length - 1] ?? null) : null;
  let critique: string | null = ctx.prior?.critique ?? null;
  const texts: string[] = [];
  for (const [i, seat] of ctx.seats.entries()) {
    draft = await ctx.calls.ask({
      llm: seat.llm,
      messages: draftMessages(seat, query, draft, critique),
      site: { phase: "seat", loop: ctx.loop, seat: seat.key, step: "draft" },
    });
    texts.push(draft);
    const last = i === ctx.seats.length - 1;
    critique = await ctx.calls.ask({
      llm: ctx.redTeam.llm,
      messages: [
        system(ctx.redTeam.systemPrompt),
        user(
          blocks(
            ["QUERY", query],
            [`DRAFT (by ${seat.key})`, draft],
            [null, last ? INSTRUCTIONS.finalCritique : null],
          ),
        ),
      ],
      site: {
        phase: "red_team",
        loop: ctx.loop,
        seat: seat.key,
        step: last ? "final_critique" : "critique",
      },
    });
  }
  return { responses: bySeat(ctx.seats, texts), critique: critique ?? "" };
};
