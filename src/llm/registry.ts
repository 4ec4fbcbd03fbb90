import { ConfigError } from "../core/errors.js";
import type { LLMSpec, ProviderContext } from "./spec.js";
import type { LLM } from "../core/contract.js";
import type { OpenAIFlavor } from "./providers/openai/convert-to-openai.js";
import { ScriptedLLM } from "./providers/scripted.js";
import { RequiredToolChoiceLLM } from "./require-tool.js";
import { RetryingLLM, retryPolicy } from "./retry.js";
import { ownEntry } from "../core/own.js";
import { PricedLLM } from "./priced.js";

export type { LLMSpec, ProviderContext, RetrySpec } from "./spec.js";

export interface ProviderEntry {
  /** Built lazily: heavy SDKs are imported only when a spell names their provider. */
  create(spec: LLMSpec, ctx: ProviderContext): Promise<LLM>;
  description: string;
}

/** Real providers: one retry policy (PROD-2) inside, the LLM-5 guarantee outside. */
function production(llm: LLM, spec: LLMSpec, ctx: ProviderContext): LLM {
  const retry = new RetryingLLM(llm, retryPolicy(spec.retry), {
    ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
    // A wait is news to whoever watches the run: said through the warning channel.
    ...(ctx.warn ? { onRetry: (info) => ctx.warn!(retryNotice(info)) } : {}),
  });
  return new RequiredToolChoiceLLM(retry);
}

function retryNotice(info: { attempt: number; delayMs: number; error: unknown }): string {
  const why = info.error instanceof Error ? info.error.message : String(info.error);
  return `${why} — retrying in ${(info.delayMs / 1000).toFixed(1)} s (attempt ${info.attempt + 1})`;
}

function openAICompatible(flavor: OpenAIFlavor, description: string): ProviderEntry {
  return {
    description,
    async create(spec, ctx) {
      const { createOpenAICompatible } = await import("./providers/openai/openai-llm.js");
      return production(createOpenAICompatible(flavor, spec, ctx), spec, ctx);
    },
  };
}

/** Providers by name. The schema's provider enum must match these keys (a test checks). */
export const providerRegistry: Readonly<Record<string, ProviderEntry>> = {
  scripted: {
    description: "replies listed in the spell (offline, for tests and demos)",
    create(spec, ctx) {
      const llm = new ScriptedLLM({
        responses: spec.responses ?? [],
        ...(spec.usage ? { usage: spec.usage } : {}),
        recordInputs: spec.recordInputs ?? false,
        cycle: spec.cycle ?? false,
        name: spec.name ?? "scripted",
      });
      // Scripted errors are retried only when the spell asks (retry:), so scripts stay literal.
      return Promise.resolve(
        spec.retry
          ? new RetryingLLM(llm, retryPolicy(spec.retry), {
              ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
              ...(ctx.warn ? { onRetry: (info) => ctx.warn!(retryNotice(info)) } : {}),
            })
          : llm,
      );
    },
  },
  replay: {
    description: "plays back the replies of a recorded loom thread (offline regression tests)",
    async create(spec, ctx) {
      const { createReplay } = await import("./providers/replay.js");
      return createReplay(spec, ctx.baseDir);
    },
  },
  openai: openAICompatible("openai", "OpenAI chat completions (OPENAI_API_KEY)"),
  openrouter: openAICompatible(
    "openrouter",
    "OpenRouter, any model it routes to (OPENROUTER_API_KEY)",
  ),
  google: openAICompatible(
    "google",
    "Google Gemini through its OpenAI-compatible endpoint (GEMINI_API_KEY or GOOGLE_API_KEY)",
  ),
  local: openAICompatible(
    "local",
    "any OpenAI-compatible server at base_url: Ollama (default), vLLM, LM Studio, llama.cpp",
  ),
  anthropic: {
    description: "Anthropic Messages API (ANTHROPIC_API_KEY)",
    async create(spec, ctx) {
      const { createAnthropic } = await import("./providers/anthropic/anthropic-llm.js");
      return production(createAnthropic(spec, ctx), spec, ctx);
    },
  },
};

/** `provider/model` shorthand → the long form. */
export function parseLLMShorthand(text: string): LLMSpec {
  const slash = text.indexOf("/");
  if (slash < 0) return { provider: text };
  return { provider: text.slice(0, slash), model: text.slice(slash + 1) };
}

/** How an LLM is built from its spec: createLLM, or a caller's own around it (`spell eval`'s). */
export type BuildLLM = (spec: LLMSpec, ctx: ProviderContext) => Promise<LLM>;

export async function createLLM(spec: LLMSpec, ctx: ProviderContext): Promise<LLM> {
  const entry = ownEntry(providerRegistry, spec.provider);
  if (!entry) {
    throw new ConfigError(
      "unknown_provider",
      `unknown llm provider ${JSON.stringify(spec.provider)}; known: ${Object.keys(providerRegistry).join(", ")}`,
    );
  }
  const llm = await entry.create(spec, ctx);
  // Outermost: the provider and model the loom records, and the price of every reply.
  return new PricedLLM(llm, spec.provider, spec.model, spec.price);
}
