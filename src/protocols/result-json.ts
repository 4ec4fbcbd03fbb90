import type { CastResult } from "../core/result.js";

/**
 * A cast's result as the wire shows it (`spell run --json`, HTTP): the documented snake_case
 * keys. A failed cast carries its error's code and message.
 */
export function resultJson(r: CastResult, loom: string) {
  return {
    status: r.status,
    result: r.result,
    terminated: r.terminated,
    truncated: r.truncated,
    reason: r.reason,
    entity_id: r.entityId,
    turns: r.turns,
    usage: {
      prompt_tokens: r.usage.promptTokens,
      completion_tokens: r.usage.completionTokens,
      cached_tokens: r.usage.cachedTokens,
      total_tokens: r.usage.totalTokens,
      /** USD; null when a turn's price was unknown (never a guessed 0). */
      cost_usd: r.usage.costUsd ?? null,
    },
    loom,
    last_turn_id: r.lastTurnId,
    ...(r.status === "failed" ? { error: { code: r.error.code, message: r.error.message } } : {}),
  };
}
