import {
  carried,
  type LLM,
  type LLMServer,
  type LLMResponse,
  type Message,
  type QueryOptions,
} from "../core/contract.js";
import { costOf, priceOf, type Price } from "./prices.js";

/**
 * An LLM that knows its provider, model and price: every reply carries `costUsd` — the cost
 * the provider reported (OpenRouter's `usage.cost`, kept in the reply's metadata as `cost`),
 * else its usage at the spell's price or the table's; no price, no `costUsd` (unknown).
 */
export class PricedLLM implements LLM {
  readonly name: string;
  readonly honoursSignal: boolean | undefined;
  readonly server: LLMServer | undefined;
  readonly price: Price | undefined;

  constructor(
    readonly inner: LLM,
    readonly provider: string,
    readonly model: string | undefined,
    price: Price | undefined,
  ) {
    this.name = inner.name;
    this.honoursSignal = inner.honoursSignal;
    this.server = inner.server;
    this.price = price ?? priceOf(provider, model) ?? freeOf(provider);
  }

  carry(): LLM {
    const inner = carried(this.inner);
    return inner === this.inner
      ? this
      : new PricedLLM(inner, this.provider, this.model, this.price);
  }

  async query(messages: readonly Message[], options?: QueryOptions): Promise<LLMResponse> {
    const response = await this.inner.query(messages, options);
    const reported = response.metadata?.["cost"];
    if (typeof reported === "number" && Number.isFinite(reported) && reported >= 0)
      return { ...response, costUsd: reported };
    if (!this.price) return response;
    return { ...response, costUsd: costOf(response.usage, this.price) };
  }
}

/** A local server (Ollama, vLLM…) charges nothing per token: its price is a known 0. */
const freeOf = (provider: string): Price | undefined =>
  provider === "local" ? { input: 0, output: 0, cached: 0 } : undefined;

/** The LLM under any PricedLLM (a scripted one, to ask what it left unused). */
export function unpriced(llm: LLM): LLM {
  return llm instanceof PricedLLM ? llm.inner : llm;
}
