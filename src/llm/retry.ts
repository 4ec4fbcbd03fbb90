import { ConfigError, SystemError } from "../core/errors.js";
import type { RetrySpec, Sleep } from "./spec.js";
import {
  carried,
  type LLM,
  type LLMServer,
  type LLMResponse,
  type Message,
  type QueryOptions,
} from "../core/contract.js";
import { ProviderError } from "./errors.js";

/** How failed queries are retried (PROD-2, spec §7.3). */
export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  maxRetries: number;
  /** The first backoff; each retry doubles it. Default 1000 ms. */
  baseDelayMs: number;
  /** No wait is longer, whether from backoff or from Retry-After. Default 60 000 ms. */
  maxDelayMs: number;
  /** HTTP statuses retried. Default: 429 and every 5xx. Other 4xx are never allowed. */
  retryableStatusCodes: readonly number[] | "default";
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  retryableStatusCodes: "default",
});

/** The `llm.retry` block of a spell (snake_case, as written). */
export type { RetrySpec } from "./spec.js";

export function retryPolicy(spec: RetrySpec | undefined): RetryPolicy {
  const codes = spec?.retryableStatusCodes;
  for (const code of codes ?? []) {
    // PROD-2: client errors other than 429 MUST NOT be retried.
    if (!Number.isInteger(code) || code < 400 || code > 599 || (code < 500 && code !== 429)) {
      throw new ConfigError(
        "retry_status_not_allowed",
        `llm.retry.retryable_status_codes: ${code} cannot be retried; only 429 and 5xx statuses may be (4xx client errors are never retried, PROD-2)`,
      );
    }
  }
  return {
    maxRetries: spec?.maxRetries ?? DEFAULT_RETRY.maxRetries,
    baseDelayMs: spec?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: spec?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    retryableStatusCodes: codes ?? "default",
  };
}

export type { Sleep } from "./spec.js";

export interface RetryOptions {
  /** Waits between attempts; tests pass one that records instead of waiting. */
  sleep?: Sleep;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Told before each wait (progress displays). Observes only. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** Is this failure worth another attempt under the policy? Never a 4xx other than 429. */
export function isRetryable(err: unknown, policy: RetryPolicy): boolean {
  if (!(err instanceof SystemError)) return false; // ModelError, ConfigError: retrying cannot help
  if (err instanceof ProviderError) {
    if (err.code === "context_window_exceeded") return false; // LLM-2: the same prompt fails again
    if (err.code === "provider_connection" || err.code === "provider_stream_incomplete")
      return true;
    if (err.status === undefined)
      return (
        err.code === "rate_limited" ||
        err.code === "provider_overloaded" ||
        err.code === "provider_server_error"
      );
  }
  const status = err.status;
  if (status === undefined) return false;
  if (policy.retryableStatusCodes === "default")
    return status === 429 || (status >= 500 && status <= 599);
  return policy.retryableStatusCodes.includes(status);
}

/** Exponential backoff with ±25 % jitter, capped: 1 s, 2 s, 4 s, … by default. */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponential = policy.baseDelayMs * 2 ** (retry - 1);
  const jittered = exponential * (0.75 + 0.5 * random());
  return Math.round(Math.min(policy.maxDelayMs, jittered));
}

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * An LLM that retries its inner LLM's failed queries (PROD-2). Transparent to the entity: a
 * retried query is one query, so it is one turn; the attempt count goes into the response's
 * metadata (and so into the turn's).
 */
export class RetryingLLM implements LLM {
  readonly name: string;
  readonly honoursSignal: boolean | undefined;
  readonly server: LLMServer | undefined;
  private readonly sleep: Sleep;
  private readonly random: () => number;

  constructor(
    readonly inner: LLM,
    readonly policy: RetryPolicy,
    private readonly options: RetryOptions = {},
  ) {
    this.name = inner.name;
    this.honoursSignal = inner.honoursSignal;
    this.server = inner.server;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
  }

  carry(): LLM {
    const inner = carried(this.inner);
    return inner === this.inner ? this : new RetryingLLM(inner, this.policy, this.options);
  }

  async query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await this.inner.query(messages, options);
        return { ...response, metadata: { ...response.metadata, attempts: attempt } };
      } catch (err) {
        if (options.signal?.aborted) throw err;
        const retries = attempt - 1;
        if (!isRetryable(err, this.policy)) throw retries > 0 ? gaveUp(err, attempt, "") : err;
        if (retries >= this.policy.maxRetries) {
          throw gaveUp(
            err,
            attempt,
            this.policy.maxRetries > 0 ? ` (gave up after ${attempt} attempts)` : "",
          );
        }
        const asked = err instanceof ProviderError ? err.retryAfterMs : undefined;
        if (asked !== undefined && asked > this.policy.maxDelayMs) {
          throw gaveUp(
            err,
            attempt,
            ` (the provider asked to wait ${Math.ceil(asked / 1000)} s before retrying, longer than llm.retry.max_delay_ms ${this.policy.maxDelayMs} ms)`,
          );
        }
        const delayMs = asked ?? backoffDelay(attempt, this.policy, this.random);
        this.options.onRetry?.({ attempt, delayMs, error: err });
        await this.sleep(delayMs, options.signal);
      }
    }
  }
}

/** The final error keeps its class and code; its message says how many attempts were made. */
function gaveUp(err: unknown, attempts: number, note: string): unknown {
  if (err instanceof Error) {
    if (note) err.message += note;
    else if (attempts > 1) err.message += ` (attempt ${attempts})`;
    Object.defineProperty(err, "attempts", { value: attempts, enumerable: false });
  }
  return err;
}
