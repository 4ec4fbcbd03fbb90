/**
 * The identity's settings as Anthropic takes them: OpenAI-style names translated, parameters
 * Anthropic lacks or Spellbook controls reported and left out (vercel/ai: settings a provider
 * cannot honour become warnings, never silent drops), and extended thinking's rules applied.
 */

/** Anthropic requires max_tokens; this is used when the identity sets none. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Parameters only OpenAI-style APIs have: Anthropic would reject them, so they are reported and left out. */
const OPENAI_ONLY = new Set([
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "n",
  "response_format",
  "reasoning_effort",
  "store",
  "modalities",
  "audio",
  "prediction",
  "verbosity",
]);
const OWNED = new Set(["model", "messages", "system", "tools", "tool_choice", "stream"]);

/** The identity's extra settings → Anthropic parameters: OpenAI-style names translated, the rest reported. */
export function translateExtra(
  extra: Record<string, unknown>,
  warnings: string[],
): { params: Record<string, unknown>; parallel: boolean } {
  const params: Record<string, unknown> = {};
  let parallel = true;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined || value === null) continue;
    if (OWNED.has(key))
      warnings.push(
        `anthropic: the identity sets "${key}", which Spellbook controls; it was not sent`,
      );
    else if (OPENAI_ONLY.has(key))
      warnings.push(`anthropic: "${key}" is not supported by the Anthropic API; it was not sent`);
    else if (key === "max_completion_tokens") params["max_tokens"] ??= value;
    else if (key === "stop") params["stop_sequences"] = Array.isArray(value) ? value : [value];
    else if (key === "user")
      params["metadata"] = { ...(params["metadata"] as object), user_id: value };
    else if (key === "parallel_tool_calls") parallel = value !== false;
    else params[key] = value;
  }
  return { params, parallel };
}

/**
 * Extended thinking's rules, applied to the parameters in place: sampling settings it forbids
 * are dropped (and reported), and a missing max_tokens makes room for the thinking budget.
 * Returns whether thinking is on.
 */
export function fitThinking(params: Record<string, unknown>, warnings: string[]): boolean {
  const thinking = params["thinking"] as { type?: string; budget_tokens?: number } | undefined;
  const thinkingOn = thinking?.type === "enabled";
  if (thinkingOn) {
    for (const key of ["temperature", "top_k"]) {
      if (params[key] !== undefined && !(key === "temperature" && params[key] === 1)) {
        warnings.push(
          `anthropic: "${key}" cannot be combined with extended thinking; it was not sent`,
        );
        delete params[key];
      }
    }
  }
  if (params["max_tokens"] === undefined) {
    params["max_tokens"] =
      DEFAULT_MAX_TOKENS +
      (thinkingOn && typeof thinking?.budget_tokens === "number" ? thinking.budget_tokens : 0);
  }
  return thinkingOn;
}
