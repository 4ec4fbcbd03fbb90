/**
 * DEBATE (brief §2.4): the deliberating seats state positions at once, the red team attacks
 * the weakest, the targeted seats defend. Choosing targets would be a semantic decision, which
 * the executor may not make: every deliberating seat is handed the attack and defends.
 *
 *   position phase: as PARALLEL (loop N > 1 sees the prior loop's defenses and attack)
 *   red team:       [system: base frame + flavor] [user: query + positions + attack instruction]
 *   defense phase:  [system: seat prompt] [user: your prior position + red team attack + defense instruction]
 *
 * "Voting" is conceptual only: no majority logic; synthesis resolves.
 */
import { blocks, INSTRUCTIONS } from "../seats.js";
import { bySeat, system, user, type Grammar } from "./grammar.js";
import { positions, redTeamMessages } from "./parallel.js";

export const debate: Grammar = async (ctx) => {
  const stated = await positions(ctx);
  const attack = await ctx.calls.ask({
    llm: ctx.redTeam.llm,
    messages: redTeamMessages(ctx, stated, INSTRUCTIONS.debateAttack),
    site: { phase: "red_team", loop: ctx.loop, step: "attack" },
  });
  const defenses = await ctx.calls.askAll(
    ctx.seats.map((seat) => ({
      llm: seat.llm,
      messages: [
        system(seat.seat.systemPrompt),
        user(
          blocks(
            ["YOUR PRIOR POSITION", stated[seat.key]],
            ["RED TEAM ATTACK", attack],
            [null, INSTRUCTIONS.defense],
          ),
        ),
      ],
      site: { phase: "seat" as const, loop: ctx.loop, seat: seat.key, step: "defense" },
    })),
  );
  return { responses: bySeat(ctx.seats, defenses), critique: attack };
};
