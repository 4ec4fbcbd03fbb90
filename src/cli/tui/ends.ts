/**
 * Where things end, for the terminal UI's model (model.ts): the wards a cast is near, and the end
 * shown for a turn the loom never got.
 */
import type { Limits, TurnView } from "./types.js";

/** Share of a ward's limit from which the status line names it. */
export const NEAR_LIMIT = 0.8;

/** The wards at NEAR_LIMIT of their limit or past it, as the status line names them. */
export function wardsNear(
  limits: Limits,
  turns: number,
  tokens: number,
  costUsd: number | undefined,
): string[] {
  const { maxTurns, maxTokens, maxCostUsd } = limits;
  const near: string[] = [];
  if (maxTurns && turns >= NEAR_LIMIT * maxTurns) near.push(`max_turns ${turns}/${maxTurns}`);
  if (maxTokens && tokens >= NEAR_LIMIT * maxTokens) near.push(`max_tokens ${tokens}/${maxTokens}`);
  if (maxCostUsd && costUsd !== undefined && costUsd >= NEAR_LIMIT * maxCostUsd)
    near.push(`max_cost_usd ${costUsd.toFixed(4)}/${maxCostUsd}`);
  return near;
}

/** The end shown for a turn that never ended (its send failed, or the cast was cut). */
export function unended(turn: TurnView, failed: boolean): NonNullable<TurnView["end"]> {
  return {
    durationMs: Date.now() - turn.startedAt,
    tokensIn: 0,
    tokensOut: 0,
    ...(failed
      ? { outcome: "continue" as const, error: "not recorded: the send failed" }
      : { outcome: "truncated" as const }),
  };
}
