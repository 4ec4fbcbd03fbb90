import { cutQuote } from "./cut-quote.js";
import type { MediumOutcome } from "./medium.js";
import { numberWard, type WardValues } from "./wards.js";

/** Every turn ends in exactly one named outcome; `done` is an outcome, not an exception. */
export type TurnOutcome =
  | { kind: "continue" }
  | { kind: "terminated"; result: unknown; reason: "done" | "text" }
  | { kind: "truncated"; reason: string };

export interface LoopState {
  turns: number;
  tokens: number;
  startedAt: number;
  now: number;
  aborted: string | null;
  /** USD spent by the cast so far; undefined once a turn's price was unknown. */
  costUsd?: number | undefined;
}

/** The wards the loop checks after every turn, read from the circle once per cast. */
export interface LoopLimits {
  maxTurns: number | undefined;
  timeoutMs: number | undefined;
  maxTokens: number | undefined;
  maxCostUsd: number | undefined;
}

export function loopLimits(wards: WardValues): LoopLimits {
  return {
    maxTurns: numberWard(wards, "max_turns"),
    timeoutMs: numberWard(wards, "timeout_ms"),
    maxTokens: numberWard(wards, "max_tokens"),
    maxCostUsd: numberWard(wards, "max_cost_usd"),
  };
}

/**
 * Decides how a turn ends. The entity's own choice wins (done, LOOP-3; text, LOOP-6); then the
 * wards, enforced here by the runtime and not by the entity (CIRCLE-6, LOOP-4).
 */
export function decideOutcome(step: MediumOutcome, limits: LoopLimits, s: LoopState): TurnOutcome {
  if (step.kind === "done") return { kind: "terminated", result: step.result, reason: "done" };
  if (step.kind === "text") return { kind: "terminated", result: step.content, reason: "text" };
  return wardTruncation(limits, s) ?? CONTINUE;
}

const CONTINUE: TurnOutcome = Object.freeze({ kind: "continue" });

/** The first ward the loop has run into, as a truncation; null while all hold. */
export function wardTruncation(limits: LoopLimits, s: LoopState): TurnOutcome | null {
  if (s.aborted !== null) return { kind: "truncated", reason: s.aborted };
  const { maxTurns, timeoutMs, maxTokens, maxCostUsd } = limits;
  if (maxTurns !== undefined && s.turns >= maxTurns)
    return { kind: "truncated", reason: "max_turns" };
  if (timeoutMs !== undefined && s.now - s.startedAt >= timeoutMs)
    return { kind: "truncated", reason: "timeout_ms" };
  if (maxTokens !== undefined && s.tokens >= maxTokens)
    return { kind: "truncated", reason: "max_tokens" };
  if (maxCostUsd !== undefined) {
    // A ward that cannot be checked stops the cast rather than let it spend unmeasured.
    if (s.costUsd === undefined) return { kind: "truncated", reason: "cost_unknown" };
    if (s.costUsd >= maxCostUsd) return { kind: "truncated", reason: "cost" };
  }
  return null;
}

/** LOOP-4: what was accomplished before the entity was cut off, without another LLM call. */
export function truncationSummary(
  reason: string,
  turns: number,
  gates: Map<string, number>,
  last: string,
): string {
  const called = [...gates].map(([g, n]) => (n > 1 ? `${g} ×${n}` : g)).join(", ") || "none";
  const tail = cutQuote(last, 200);
  return (
    `Truncated by ${reason} after ${turns} turn${turns === 1 ? "" : "s"}. Gates called: ${called}.` +
    (tail ? ` Last utterance: ${JSON.stringify(tail)}` : "")
  );
}
