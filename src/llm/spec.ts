/**
 * What the LLM layer is configured with: camelCase, the TypeScript API's words. The loader
 * converts a spell's snake_case `llm:` block into this once (spell/llm-spec.ts).
 */
import type { Redactor } from "../core/redact.js";
import type { Price } from "./prices.js";
import type { ScriptedResponse } from "./providers/scripted.js";

/** How a retry waits: tests pass one that records instead of waiting. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** PROD-2: how failed queries are retried. Every field has a default (retry.ts). */
export interface RetrySpec {
  /** Default 3. */
  maxRetries?: number;
  /** Default 1000. */
  baseDelayMs?: number;
  /** Default 60000. */
  maxDelayMs?: number;
  /** Default: 429 and every 5xx. Other 4xx are never retried. */
  retryableStatusCodes?: number[];
}

export interface LLMSpec {
  /** Which provider adapter serves the model (a registered name). */
  provider: string;
  model?: string;
  /** A name other parts of a spell refer to this llm by. */
  name?: string;
  /** Default: the provider's own URL; local: http://127.0.0.1:11434/v1 (Ollama). */
  baseUrl?: string;
  /** Default: the provider's usual environment variable. */
  apiKey?: string;
  contextWindow?: number;
  headers?: Record<string, string>;
  /** Per-request timeout. Default 600000. */
  timeoutMs?: number;
  /** openrouter: fallback models, tried in order. */
  models?: string[];
  /** openrouter: attribution (HTTP-Referer). */
  appUrl?: string;
  /** openrouter: attribution (X-Title). */
  appName?: string;
  /** anthropic: mark prompt-cache breakpoints. Default true. */
  promptCaching?: boolean;
  /** replay: the recorded loom (JSONL), relative to the spell. */
  loom?: string;
  /** replay: the id of the thread's last turn. Default: the last turn written. */
  thread?: string;
  retry?: RetrySpec;
  /** USD per million tokens, overriding the price table (prices.ts); for any provider. */
  price?: Price;
  /** scripted: one reply per query, in the script format (CONFORMANCE.md). */
  responses?: ScriptedResponse[];
  /** scripted: after the last reply, start again from the first. Default false. */
  cycle?: boolean;
  usage?: ScriptedResponse["usage"];
  recordInputs?: boolean;
}

export interface ProviderContext {
  /** Secrets found while building (API keys) are added here so they are redacted (PROD-8). */
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  baseDir: string;
  /** The HTTP client real providers use (tests pass one; nothing global is patched). */
  fetch?: typeof fetch;
  /** How retries wait (tests pass one that does not). */
  sleep?: Sleep;
  /** Where warnings about settings a provider cannot honour go; default process.emitWarning. */
  warn?: (message: string) => void;
}
