/** What a cast spends and who it asked: the loom's `llm` and `cost_usd`, the cast's `costUsd`. */
import type { LLM } from "./contract.js";
import type { LLMId } from "./loom-writer.js";

/**
 * The provider and model an LLM says it is; one that does not say is read from its
 * `provider/model` name (LLM.name).
 */
export function llmIdOf(llm: LLM): LLMId {
  if (llm.provider !== undefined) return { provider: llm.provider, model: llm.model ?? null };
  const slash = llm.name.indexOf("/");
  if (slash < 0) return { provider: llm.name, model: null };
  return { provider: llm.name.slice(0, slash), model: llm.name.slice(slash + 1) };
}

/** A running total in USD that stays unknown once one part of it was unknown. */
export const addCost = (total: number | undefined, add: number | undefined): number | undefined =>
  total === undefined || add === undefined ? undefined : total + add;

/** USD as people read it: six decimals under a cent, four above ($0.001350, $1.2500). */
export const formatUsd = (usd: number): string => `$${usd.toFixed(usd < 0.01 ? 6 : 4)}`;
