/**
 * The casts of a case as the suite reads them: the last cast, a cast's thread in the loom (or
 * the extracted one), its roles, and the `thread_N` expectation.
 */
import { ConfigError } from "../core/errors.js";
import type { Turn } from "../loom/records/index.js";
import type { Outcome } from "./act.js";
import type { Built } from "./build.js";
import { looselyEqual, matchValue, show, type MatchContext } from "./match.js";

/** One expectation's check: null when it holds, else what differs. */
export type Check = (want: unknown, o: Outcome, b: Built, m: MatchContext) => string | null;

export const last = (o: Outcome) => {
  const cast = o.casts[o.casts.length - 1];
  if (!cast) throw new ConfigError("no_cast", "this expectation needs a cast");
  return cast;
};

/** A thread as the suite's roles: each turn is the entity's utterance and the circle's observation. */
export const roles = (thread: Turn[]): string[] =>
  thread.flatMap((t) => (t.observation ? ["entity", "circle"] : ["entity"]));

export const threadOf = (o: Outcome, b: Built, i?: number): Turn[] => {
  if (i === undefined && o.extracted) return o.extracted;
  const cast = i === undefined ? last(o) : o.casts[i];
  if (!cast?.lastTurnId) return [];
  return b.loom.thread(cast.lastTurnId).filter((t) => t.entity_id === cast.entityId);
};

export const castTurns = (o: Outcome, b: Built): Turn[] => threadOf(o, b).slice(-last(o).turns);

/** `thread_N`: the thread of cast N — `{ turns, result, last_turn: { terminated, truncated } }`; a fork's `turns` counts from the root. */
export function threadN(i: number): Check {
  return (w, o, b, m) => {
    const cast = o.casts[i];
    if (!cast) return `thread_${i}: there is no cast ${i}`;
    const thread = threadOf(o, b, i);
    const { turns, result, last_turn, ...rest } = w as {
      turns?: number;
      result?: unknown;
      last_turn?: unknown;
    };
    if (Object.keys(rest).length)
      throw new ConfigError(
        "unsupported_expectation",
        `unsupported expectation: thread_${i}.${Object.keys(rest)[0]}`,
      );
    // A fork's thread runs from the root: the turns it kept, then its own (LOOM-4).
    const length = cast.turns + (o.forkedAfter?.get(i) ?? 0);
    if (turns !== undefined && turns !== length)
      return `thread_${i}.turns: expected ${turns}, got ${length}`;
    if (result !== undefined && !looselyEqual(result, cast.result))
      return `thread_${i}.result: expected ${show(result)}, got ${show(cast.result)}`;
    if (last_turn !== undefined && Object.keys(last_turn as object).length === 0)
      return `thread_${i}.last_turn checks nothing`;
    return last_turn === undefined
      ? null
      : matchValue(last_turn, thread[thread.length - 1], m, `thread_${i}.last_turn`);
  };
}
