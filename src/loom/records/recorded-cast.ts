/**
 * An entity's last cast read back from its recorded turns (ENTITY-5, `cast({ resumeEntity })`):
 * how far it got, what it cost and whether it ended. See RecordedCast in core/loom-writer.ts.
 */
import { emptyUsage } from "../../core/contract.js";
import type { RecordedCast } from "../../core/loom-writer.js";
import type { Turn } from "./turn.js";

/** Truncations that stop a cast without ending it: `--resume` or another worker continues it. */
export const INTERRUPTIONS: ReadonlySet<string> = new Set([
  "interrupted",
  "aborted",
  "parent_terminated",
]);

/**
 * A turn cut off before the LLM answered (the loop's record of an interruption, LOOM-7): no
 * utterance and no call. It adds nothing to the context a continuation rebuilds.
 */
export const cutOff = (t: Turn): boolean =>
  t.truncated && t.utterance === "" && t.gate_calls.length === 0;

/** The last cast among `path` (the entity's thread, oldest first) of `entityId`. */
export function recordedCast(path: readonly Turn[], entityId: string): RecordedCast {
  let start = 0;
  for (let i = path.length - 1; i >= 0; i--) {
    const t = path[i]!;
    if (t.entity_id !== entityId) break;
    start = i;
    if (typeof t.metadata["intent"] === "string") break;
  }
  const turns = path.slice(start);
  const usage = emptyUsage();
  let costUsd: number | undefined = 0;
  const gates: Record<string, number> = {};
  let lastUtterance = "";
  let answered = 0;
  for (const t of turns) {
    usage.promptTokens += t.metadata.tokens_prompt;
    usage.completionTokens += t.metadata.tokens_completion;
    usage.cachedTokens += t.metadata.tokens_cached;
    costUsd = costUsd === undefined || t.cost_usd === undefined ? undefined : costUsd + t.cost_usd;
    for (const g of t.gate_calls) gates[g.gate_name] = (gates[g.gate_name] ?? 0) + 1;
    if (cutOff(t)) continue;
    lastUtterance = t.utterance;
    answered++;
  }
  const first = turns[0]?.metadata["intent"];
  return {
    intent: typeof first === "string" ? first : null,
    turns: turns.length,
    answered,
    usage,
    costUsd,
    gates,
    lastUtterance,
    end: ending(turns.at(-1)),
  };
}

function ending(last: Turn | undefined): RecordedCast["end"] {
  if (!last || !last.reason) return null;
  if (last.terminated) return { terminated: true, reason: last.reason, result: resultOf(last) };
  if (INTERRUPTIONS.has(last.reason)) return null;
  return { terminated: false, reason: last.reason, result: undefined };
}

/** A `done` turn's answer as its gate call recorded it; a text reply's text. */
function resultOf(turn: Turn): unknown {
  const done = turn.gate_calls.findLast((g) => g.gate_name === "done" && !g.is_error);
  return done ? done.result : turn.utterance;
}
