/**
 * A spell's `llm:` block (snake_case, as written) → the LLM layer's LLMSpec (camelCase):
 * converted here, once, so the LLM layer never reads the document's words.
 */
import { ConfigError } from "../core/errors.js";
import { ownEntry } from "../core/own.js";
import { parseLLMShorthand } from "../llm/registry.js";
import type { LLMSpec, RetrySpec } from "../llm/spec.js";

const LLM_KEYS: Readonly<Record<string, keyof LLMSpec>> = {
  provider: "provider",
  model: "model",
  name: "name",
  base_url: "baseUrl",
  api_key: "apiKey",
  context_window: "contextWindow",
  headers: "headers",
  timeout_ms: "timeoutMs",
  models: "models",
  app_url: "appUrl",
  app_name: "appName",
  prompt_caching: "promptCaching",
  loom: "loom",
  thread: "thread",
  retry: "retry",
  price: "price",
  responses: "responses",
  cycle: "cycle",
  usage: "usage",
  record_inputs: "recordInputs",
};

const RETRY_KEYS: Readonly<Record<string, keyof RetrySpec>> = {
  max_retries: "maxRetries",
  base_delay_ms: "baseDelayMs",
  max_delay_ms: "maxDelayMs",
  retryable_status_codes: "retryableStatusCodes",
};

/** A retry block as written → RetrySpec. */
export function retrySpecOf(value: unknown): RetrySpec | undefined {
  if (value === undefined || value === null) return undefined;
  return renamed(value as Record<string, unknown>, RETRY_KEYS, "retry");
}

/** An llm as written — shorthand or block — → LLMSpec; `what` names it in errors. */
export function llmSpecOf(value: unknown, what = "llm"): LLMSpec | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return parseLLMShorthand(value);
  if (typeof value !== "object" || typeof (value as { provider?: unknown }).provider !== "string")
    throw new ConfigError("bad_llm", `${what} is provider/model or { provider, model, ... }`);
  const spec = renamed(value as Record<string, unknown>, LLM_KEYS, what) as unknown as LLMSpec;
  if (spec.retry) spec.retry = retrySpecOf(spec.retry)!;
  return spec;
}

function renamed(
  value: Record<string, unknown>,
  keys: Readonly<Record<string, string>>,
  what: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = ownEntry(keys, key);
    if (!name) throw new ConfigError("bad_llm", `${what}: unknown key ${JSON.stringify(key)}`);
    out[name] = v;
  }
  return out;
}
