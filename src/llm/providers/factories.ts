/**
 * The providers as functions, for code that builds a cantrip without YAML: `openai({ model })`
 * is what `llm: { provider: openai, model }` is in a spell (the same adapter, retry and
 * tool_choice wrappers, through `createLLM`). The API key defaults to the provider's usual
 * environment variable; a key given here joins the redactor passed (PROD-8).
 */
import { Redactor } from "../../core/redact.js";
import type { LLM } from "../../core/contract.js";
import { createLLM } from "../registry.js";
import type { LLMSpec } from "../spec.js";

/** A provider's settings: the spell's `llm:` keys in camelCase, without the offline ones. */
export interface ProviderOptions extends Omit<
  LLMSpec,
  "provider" | "responses" | "usage" | "recordInputs" | "loom" | "thread"
> {
  /** Where the API key is looked up when `apiKey` is not given. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Learns the API key so that it is redacted wherever this redactor is used. */
  redactor?: Redactor;
}

type Factory = (options?: ProviderOptions) => Promise<LLM>;

const factory =
  (provider: string): Factory =>
  (options = {}) => {
    const { env, redactor, ...spec } = options;
    return createLLM(
      { provider, ...spec },
      { redactor: redactor ?? new Redactor(), env: env ?? process.env, baseDir: process.cwd() },
    );
  };

/** Anthropic Messages API (ANTHROPIC_API_KEY). */
export const anthropic = factory("anthropic");
/** OpenAI chat completions (OPENAI_API_KEY). */
export const openai = factory("openai");
/** OpenRouter (OPENROUTER_API_KEY); `models` are fallbacks tried in order. */
export const openrouter = factory("openrouter");
/** Google Gemini's OpenAI-compatible endpoint (GEMINI_API_KEY or GOOGLE_API_KEY). */
export const google = factory("google");
/** Any OpenAI-compatible server at `baseUrl` (default Ollama at http://127.0.0.1:11434/v1). */
export const local = factory("local");
