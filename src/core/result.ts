/** What a cast returns: one of three named outcomes, never an exception for a failed loop. */
import type { Usage } from "./contract.js";
import type { SpellbookError } from "./errors.js";

export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  /** USD spent, summed over the turns; undefined when any turn's price was unknown. */
  costUsd?: number;
}

interface CastCommon<L> {
  entityId: string;
  /** Turns of this cast. */
  turns: number;
  /** Usage of this cast, and of the entity across all its casts (PROD-3). */
  usage: UsageTotals;
  cumulativeUsage: UsageTotals;
  loom: L;
  /** The last turn of this cast: its thread is `loom.thread(lastTurnId)`. */
  lastTurnId: string | null;
}

/** The entity ended the loop: `done` (LOOP-3) or a text reply (LOOP-6). */
export interface CastTerminated<L> extends CastCommon<L> {
  status: "terminated";
  terminated: true;
  truncated: false;
  reason: "done" | "text";
  result: unknown;
}

/** A ward or a cancel cut the loop off (LOOP-4); `result` says what was reached. */
export interface CastTruncated<L> extends CastCommon<L> {
  status: "truncated";
  terminated: false;
  truncated: true;
  /** The ward or cause: "max_turns", "timeout_ms", "interrupted", "parent_terminated", … */
  reason: string;
  result: string;
  /** What the entity said last before it was cut off (its last text, code or calls); "" when nothing. */
  lastUtterance: string;
}

/** The loop failed (a provider, the model broke the contract); the turns before it are in the loom. */
export interface CastFailed<L> extends CastCommon<L> {
  status: "failed";
  terminated: false;
  truncated: false;
  reason: "failed";
  result: undefined;
  error: SpellbookError;
}

export type CastResult<L = unknown> = CastTerminated<L> | CastTruncated<L> | CastFailed<L>;

export function totals(u: Usage, costUsd?: number): UsageTotals {
  const out: UsageTotals = {
    promptTokens: u.promptTokens,
    completionTokens: u.completionTokens,
    cachedTokens: u.cachedTokens,
    totalTokens: u.promptTokens + u.completionTokens,
  };
  if (costUsd !== undefined) out.costUsd = costUsd;
  return out;
}
