/**
 * The LLMs a spell's children build inside an eval (call_entity's `llm`/`llms`, child spells'):
 * built like the spell's own — without retries of their own — and queried through an EvalLLM of
 * the run's scheduler, so a child's 429 pauses its provider for every cast (Retry-After honoured)
 * instead of being retried privately, and counts in the run's `rate_limited`. Being inside its
 * cast's scope, a child's replies are recorded with its cast's, and a replay answers them.
 */
import { createLLM, type BuildLLM } from "../llm/registry.js";
import { EvalLLM } from "./llm.js";
import type { Scheduler } from "./scheduler.js";

export function childLLMBuilder(scheduler: Scheduler, replay: boolean): BuildLLM {
  return async (spec, ctx) => {
    const inner = replay
      ? undefined
      : await createLLM({ ...spec, retry: { ...spec.retry, maxRetries: 0 } }, ctx);
    const label = `${spec.provider}/${spec.model ?? "default"}`;
    return new EvalLLM(inner, scheduler.gate(spec.provider), label);
  };
}
