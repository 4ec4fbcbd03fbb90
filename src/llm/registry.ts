import { ConfigError } from "../core/errors.js";
import type { Redactor } from "../core/redact.js";
import type { LLM } from "./contract.js";
import { ScriptedLLM, type ScriptedResponse } from "./providers/scripted.js";

/** An `llm:` block of a spell after interpolation, in the spell's snake_case words. */
export interface LLMSpec {
  provider: string;
  model?: string;
  name?: string;
  base_url?: string;
  api_key?: string;
  context_window?: number;
  retry?: { max_retries?: number; base_delay_ms?: number; max_delay_ms?: number };
  headers?: Record<string, string>;
  /** scripted */
  responses?: ScriptedResponse[];
  usage?: ScriptedResponse["usage"];
  record_inputs?: boolean;
  [key: string]: unknown;
}

export interface ProviderContext {
  /** Secrets found while building (API keys) are added here so they are redacted (PROD-8). */
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  baseDir: string;
}

export interface ProviderEntry {
  /** Built lazily: heavy SDKs are imported only when a spell names their provider. */
  create(spec: LLMSpec, ctx: ProviderContext): Promise<LLM>;
  description: string;
}

/** Providers by name. The schema's provider enum must match these keys (a test checks). */
export const providerRegistry: Record<string, ProviderEntry> = {
  scripted: {
    description: "replies listed in the spell (offline, for tests and demos)",
    create(spec) {
      return Promise.resolve(
        new ScriptedLLM({
          responses: spec.responses ?? [],
          ...(spec.usage ? { usage: spec.usage } : {}),
          recordInputs: spec.record_inputs ?? false,
          name: spec.name ?? "scripted",
        }),
      );
    },
  },
};

export function registerProvider(name: string, entry: ProviderEntry): void {
  providerRegistry[name] = entry;
}

/** `provider/model` shorthand → the long form. */
export function parseLLMShorthand(text: string): LLMSpec {
  const slash = text.indexOf("/");
  if (slash < 0) return { provider: text };
  return { provider: text.slice(0, slash), model: text.slice(slash + 1) };
}

export async function createLLM(spec: LLMSpec, ctx: ProviderContext): Promise<LLM> {
  const entry = providerRegistry[spec.provider];
  if (!entry) {
    throw new ConfigError(
      "unknown_provider",
      `unknown llm provider ${JSON.stringify(spec.provider)}; known: ${Object.keys(providerRegistry).join(", ")}`,
    );
  }
  return entry.create(spec, ctx);
}
