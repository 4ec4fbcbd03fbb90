/**
 * The price table: USD per million tokens, per provider and model, as the providers list them
 * (standard tier, prompts under any long-context surcharge; checked 2025-11). A spell's `llm:`
 * block overrides it (`price: { input, output, cached }`). A model not listed has no price:
 * its cost is unknown, never a guessed 0. Cache writes (Anthropic) are priced as input.
 */
import type { Usage } from "../core/contract.js";
import { ownEntry } from "../core/own.js";

/** USD per million tokens. `cached`: input tokens read from the prompt cache (default: input). */
export interface Price {
  input: number;
  output: number;
  cached?: number;
}

const p = (input: number, output: number, cached: number): Price => ({ input, output, cached });

export const PRICES: Readonly<Record<string, Readonly<Record<string, Price>>>> = {
  anthropic: {
    "claude-opus-4-5": p(5, 25, 0.5),
    "claude-opus-4-1": p(15, 75, 1.5),
    "claude-opus-4-0": p(15, 75, 1.5),
    "claude-sonnet-4-5": p(3, 15, 0.3),
    "claude-sonnet-4-0": p(3, 15, 0.3),
    "claude-3-7-sonnet": p(3, 15, 0.3),
    "claude-haiku-4-5": p(1, 5, 0.1),
    "claude-3-5-haiku": p(0.8, 4, 0.08),
  },
  openai: {
    "gpt-5": p(1.25, 10, 0.125),
    "gpt-5-mini": p(0.25, 2, 0.025),
    "gpt-5-nano": p(0.05, 0.4, 0.005),
    "gpt-4.1": p(2, 8, 0.5),
    "gpt-4.1-mini": p(0.4, 1.6, 0.1),
    "gpt-4.1-nano": p(0.1, 0.4, 0.025),
    "gpt-4o": p(2.5, 10, 1.25),
    "gpt-4o-mini": p(0.15, 0.6, 0.075),
    o3: p(2, 8, 0.5),
    "o4-mini": p(1.1, 4.4, 0.275),
  },
  google: {
    "gemini-2.5-pro": p(1.25, 10, 0.31),
    "gemini-2.5-flash": p(0.3, 2.5, 0.075),
    "gemini-2.5-flash-lite": p(0.1, 0.4, 0.025),
  },
};

/** Aliases Anthropic lists without the `-0`: `claude-sonnet-4` is `claude-sonnet-4-0`. */
const ALIASES: Readonly<Record<string, string>> = {
  "claude-sonnet-4": "claude-sonnet-4-0",
  "claude-opus-4": "claude-opus-4-0",
};

/** A dated snapshot or moving alias of a listed model: `gpt-4.1-2025-04-14`, `…-20250929`, `…-latest`. */
const SNAPSHOT = /^-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The listed price of `provider/model`; undefined when the table does not list it. */
export function priceOf(provider: string, model: string | undefined): Price | undefined {
  const table = ownEntry(PRICES, provider);
  if (!table || model === undefined) return undefined;
  const exact = (name: string) => ownEntry(table, ownEntry(ALIASES, name) ?? name);
  const found = exact(model);
  if (found) return found;
  const cut = /^(.*?)(-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest))$/.exec(model);
  return cut && SNAPSHOT.test(cut[2]!) ? exact(cut[1]!) : undefined;
}

/** A turn's usage at a price, in USD. `promptTokens` includes the cached ones (core's Usage). */
export function costOf(usage: Usage, price: Price): number {
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  const fresh = usage.promptTokens - cached;
  const micro =
    fresh * price.input +
    cached * (price.cached ?? price.input) +
    usage.completionTokens * price.output;
  return micro / 1e6;
}
