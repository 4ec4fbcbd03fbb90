/**
 * The LLM every cast of an eval run queries through. Which cast is asking is known from an
 * AsyncLocalStorage scope the runner opens around each cast, so one loaded spell serves many
 * casts at once while each cast keeps its own: its recorded replies (`--record`), its replayed
 * ones (`--replay`), and its usage. A 429 pauses the provider for every cast (scheduler.ts) and
 * the query is asked again; any other provider error fails the cast (an errored case).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { LLM, LLMResponse, LLMServer, Message, QueryOptions } from "../core/contract.js";
import { ConfigError } from "../core/errors.js";
import { ProviderError } from "../llm/errors.js";
import type { ProviderGate } from "./scheduler.js";

/** What one cast's queries share. */
export interface CastScope {
  key: string;
  /** Replies received, kept when recording. */
  replies: LLMResponse[] | undefined;
  /** The LLM that answers this cast instead of the provider (a replay of its own recording). */
  replay: LLM | undefined;
}

export const castScope = new AsyncLocalStorage<CastScope>();

/** How many 429s in a row one query may meet before its cast errors. */
const MAX_RATE_LIMITED = 20;

export class EvalLLM implements LLM {
  readonly name: string;
  readonly server: LLMServer | undefined;

  constructor(
    private readonly inner: LLM | undefined,
    private readonly gate: ProviderGate,
    label: string,
  ) {
    this.name = inner?.name ?? label;
    this.server = inner?.server;
  }

  async query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    const scope = castScope.getStore();
    if (scope?.replay) return scope.replay.query(messages, options);
    if (!this.inner)
      throw new ConfigError(
        "eval_not_recorded",
        `${scope?.key ?? "this cast"}: no recorded replies`,
      );
    for (let attempt = 1; ; attempt++) {
      const done = await this.gate.ready(options.signal);
      try {
        const response = await this.inner.query(messages, options);
        scope?.replies?.push(response);
        return response;
      } catch (err) {
        if (!isRateLimit(err) || attempt >= MAX_RATE_LIMITED || options.signal?.aborted) throw err;
        this.gate.pause(err.retryAfterMs ?? Math.min(30_000, 500 * 2 ** (attempt - 1)));
      } finally {
        done(); // a steady rate's slot counts until a window after this
      }
    }
  }
}

const isRateLimit = (err: unknown): err is ProviderError =>
  err instanceof ProviderError && (err.status === 429 || err.code === "rate_limited");
