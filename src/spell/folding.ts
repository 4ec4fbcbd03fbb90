/** A spell's `folding:` block → the folding view (core/folding.ts), its summarizer built here. */
import type { LLM } from "../core/contract.js";
import { llmSummary, templateSummary } from "../core/fold-summary.js";
import { foldingView } from "../core/folding.js";
import type { ContextView } from "../core/view.js";
import type { Folding } from "../generated/spell.js";
import { createLLM, type LLMSpec, type ProviderContext } from "../llm/registry.js";
import { llmSpecOf } from "./llm-spec.js";

export interface FoldingContext {
  /** The cantrip's LLM: it writes `llm` summaries unless `folding.llm` names another. */
  llm: LLM | undefined;
  /** The cantrip's LLM block: its `contextWindow` is the default window. */
  spec: LLMSpec | undefined;
  provider: ProviderContext;
  /** spell validate: check the block, build no client. */
  validateOnly?: boolean | undefined;
}

/** Undefined when the spell does not fold: the cantrip keeps the whole-history view. */
export async function compileFolding(
  folding: Folding | undefined,
  ctx: FoldingContext,
): Promise<ContextView | undefined> {
  if (!folding) return undefined;
  const strategy = folding.strategy ?? "template";
  let summarize = templateSummary;
  if (strategy === "llm") {
    const own = llmSpecOf(folding.llm, "folding.llm");
    const llm = own && !ctx.validateOnly ? await createLLM(own, ctx.provider) : ctx.llm;
    if (llm) summarize = llmSummary(llm);
  }
  const contextWindow = folding.context_window ?? ctx.spec?.contextWindow;
  return foldingView({
    strategy,
    summarize,
    ...(folding.threshold !== undefined ? { threshold: folding.threshold } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(folding.trigger_after_turns !== undefined
      ? { triggerAfterTurns: folding.trigger_after_turns }
      : {}),
    ...(folding.keep_recent_turns !== undefined
      ? { keepRecentTurns: folding.keep_recent_turns }
      : {}),
  });
}
