/**
 * A cast continued by `cast(intent, { resumeEntity })` that had already ended before it was
 * asked again (a queue job delivered twice, `spell run --resume` of a finished cast): its
 * recorded ending comes back as the result, without another LLM call.
 */
import type { RecordedCast } from "./loom-writer.js";
import { truncationSummary } from "./outcome.js";
import { totals, type CastResult, type UsageTotals } from "./result.js";

interface Ended<L> {
  entityId: string;
  loom: L;
  lastTurnId: string | null;
  cumulativeUsage: UsageTotals;
}

export function recordedResult<L>(
  cast: RecordedCast & { end: NonNullable<RecordedCast["end"]> },
  at: Ended<L>,
): CastResult<L> {
  const common = { ...at, turns: cast.turns, usage: totals(cast.usage, cast.costUsd) };
  const { end } = cast;
  if (end.terminated)
    return {
      ...common,
      status: "terminated",
      terminated: true,
      truncated: false,
      reason: end.reason === "text" ? "text" : "done",
      result: end.result,
    };
  const gates = new Map(Object.entries(cast.gates));
  return {
    ...common,
    status: "truncated",
    terminated: false,
    truncated: true,
    reason: end.reason,
    result: truncationSummary(end.reason, cast.turns, gates, cast.lastUtterance),
    lastUtterance: cast.lastUtterance,
  };
}
