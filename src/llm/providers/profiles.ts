import { ConfigError } from "../../core/errors.js";
import type { LLMSpec, ProviderContext } from "../spec.js";

/** Where a provider lives and where its key comes from by default. */
export interface ProviderProfile {
  name: string;
  /** The service's own base URL; `base_url` or `baseURLEnv` override it. */
  defaultBaseURL: string;
  baseURLEnv: string;
  /** The usual environment variables for the key, in order of preference. Empty: no key needed. */
  keyEnv: readonly string[];
  /** Shown in the missing-key error. */
  keyHelp: string;
}

export const PROFILES = {
  openai: {
    name: "openai",
    defaultBaseURL: "https://api.openai.com/v1",
    baseURLEnv: "OPENAI_BASE_URL",
    keyEnv: ["OPENAI_API_KEY"],
    keyHelp: "https://platform.openai.com/api-keys",
  },
  anthropic: {
    name: "anthropic",
    defaultBaseURL: "https://api.anthropic.com",
    baseURLEnv: "ANTHROPIC_BASE_URL",
    keyEnv: ["ANTHROPIC_API_KEY"],
    keyHelp: "https://console.anthropic.com/settings/keys",
  },
  openrouter: {
    name: "openrouter",
    defaultBaseURL: "https://openrouter.ai/api/v1",
    baseURLEnv: "OPENROUTER_BASE_URL",
    keyEnv: ["OPENROUTER_API_KEY"],
    keyHelp: "https://openrouter.ai/keys",
  },
  google: {
    name: "google",
    // Gemini's OpenAI-compatible endpoint.
    defaultBaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/",
    baseURLEnv: "GEMINI_BASE_URL",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    keyHelp: "https://aistudio.google.com/apikey",
  },
  local: {
    name: "local",
    // Ollama's default; vLLM, LM Studio and llama.cpp serve the same API elsewhere (base_url).
    defaultBaseURL: "http://127.0.0.1:11434/v1",
    baseURLEnv: "LOCAL_LLM_BASE_URL",
    keyEnv: [],
    keyHelp: "",
  },
} as const satisfies Record<string, ProviderProfile>;

/** Every environment variable that holds a provider key: redacted wherever they are set (PROD-8). */
export const KEY_ENV_VARS: readonly string[] = [
  ...new Set(Object.values(PROFILES).flatMap((p) => p.keyEnv)),
];

/**
 * The API key: `api_key:` in the spell, else the provider's usual variable. Missing → a
 * ConfigError naming the variable, raised while the spell loads (before the first turn).
 * The key is handed to the redactor (PROD-8).
 */
export function resolveApiKey(
  spec: LLMSpec,
  profile: ProviderProfile,
  ctx: ProviderContext,
): string | undefined {
  let key = typeof spec.apiKey === "string" && spec.apiKey !== "" ? spec.apiKey : undefined;
  for (const name of profile.keyEnv) {
    if (key) break;
    const value = ctx.env[name];
    if (value) key = value;
  }
  if (!key && profile.keyEnv.length) {
    const vars = profile.keyEnv.join(" or ");
    throw new ConfigError(
      "api_key_missing",
      `the ${profile.name} provider needs an API key: set ${vars} in the environment, or write api_key: \${env:YOUR_VAR} in the llm block (keys: ${profile.keyHelp})`,
    );
  }
  if (key) ctx.redactor.add(key);
  return key;
}

export function resolveBaseURL(
  spec: LLMSpec,
  profile: ProviderProfile,
  ctx: ProviderContext,
): string {
  const url =
    (typeof spec.baseUrl === "string" && spec.baseUrl) ||
    ctx.env[profile.baseURLEnv] ||
    profile.defaultBaseURL;
  let protocol = "";
  try {
    protocol = new URL(url).protocol;
  } catch {
    // reported below
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new ConfigError(
      "bad_base_url",
      `llm.base_url ${JSON.stringify(url)} is not a URL (e.g. http://127.0.0.1:11434/v1)`,
    );
  }
  return url;
}

export function requireModel(spec: LLMSpec, example: string): string {
  if (typeof spec.model === "string" && spec.model.trim() !== "") return spec.model;
  throw new ConfigError(
    "model_missing",
    `the ${spec.provider} provider needs a model: write llm: ${spec.provider}/${example} or llm: { provider: ${spec.provider}, model: ${example} }`,
  );
}
