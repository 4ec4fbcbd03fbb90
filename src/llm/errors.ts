import { SystemError } from "../core/errors.js";

/**
 * Why a provider query failed, in words the retry policy and the user can act on. Stable
 * codes: scripts and tests match on them, never on message text.
 */
export type ProviderErrorCode =
  /** LLM-2: the prompt is longer than the model's context window. Never retried. */
  | "context_window_exceeded"
  | "rate_limited"
  | "provider_overloaded"
  | "provider_server_error"
  | "provider_auth"
  | "provider_permission"
  | "provider_not_found"
  | "provider_bad_request"
  | "provider_error"
  /** The connection failed, was reset, or timed out (no HTTP status). */
  | "provider_connection"
  /** A stream ended before the provider said it was complete (a dropped connection). */
  | "provider_stream_incomplete"
  /** The provider answered, but not in its own wire format. */
  | "provider_bad_response";

export interface ProviderErrorInit {
  provider: string;
  status?: number | undefined;
  /** What the server asked us to wait (Retry-After / retry-after-ms), in ms. */
  retryAfterMs?: number | undefined;
  /** The provider's own error type/code (e.g. "overloaded_error", "context_length_exceeded"). */
  providerCode?: string | undefined;
  cause?: unknown;
}

/** A failed provider query. `status` is the HTTP status when there was one. */
export class ProviderError extends SystemError {
  override readonly name: string = "ProviderError";
  declare readonly code: ProviderErrorCode;
  readonly provider: string;
  readonly retryAfterMs: number | undefined;
  readonly providerCode: string | undefined;

  constructor(code: ProviderErrorCode, message: string, init: ProviderErrorInit) {
    super(code, message, {
      ...(init.status !== undefined ? { status: init.status } : {}),
      cause: init.cause,
    });
    this.provider = init.provider;
    this.retryAfterMs = init.retryAfterMs;
    this.providerCode = init.providerCode;
  }

  static override isInstance(value: unknown): value is ProviderError {
    return value instanceof ProviderError;
  }
}

/** The phrases providers use for a prompt that does not fit (OpenAI, OpenRouter, vLLM, Anthropic, Gemini). */
const OVERFLOW = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /context window/i,
  /prompt is too long/i,
  /input token count .* exceeds/i,
  /too many (input )?tokens/i,
  /exceeds the maximum number of tokens/i,
];

export function isContextOverflow(message: string, providerCode?: string): boolean {
  const text = `${providerCode ?? ""} ${message}`;
  return OVERFLOW.some((re) => re.test(text));
}

/** An HTTP failure → a coded error. Pure: the adapters hand in what the SDK saw. */
export function classifyHttpError(
  provider: string,
  status: number | undefined,
  message: string,
  extra: {
    providerCode?: string | undefined;
    retryAfterMs?: number | undefined;
    cause?: unknown;
  } = {},
): ProviderError {
  const init: ProviderErrorInit = { provider, status, ...extra };
  const say = (what: string) =>
    `${provider}: ${what}${status !== undefined ? ` (HTTP ${status})` : ""}: ${message}`;
  if (
    (status === 400 || status === 413 || status === undefined) &&
    isContextOverflow(message, extra.providerCode)
  ) {
    return new ProviderError(
      "context_window_exceeded",
      `${provider}: the prompt exceeds the model's context window (LLM-2)${status !== undefined ? ` (HTTP ${status})` : ""}: ${message}`,
      init,
    );
  }
  if (status === undefined) {
    // An error event inside a stream: the provider's own type says what it was.
    if (extra.providerCode === "overloaded_error")
      return new ProviderError("provider_overloaded", say("overloaded"), init);
    if (extra.providerCode === "rate_limit_error")
      return new ProviderError("rate_limited", say("rate limited"), init);
    if (extra.providerCode === "api_error" || extra.providerCode === "server_error") {
      return new ProviderError("provider_server_error", say("server error"), init);
    }
    return new ProviderError("provider_error", say("error"), init);
  }
  if (status === 429) return new ProviderError("rate_limited", say("rate limited"), init);
  if (status === 529) return new ProviderError("provider_overloaded", say("overloaded"), init);
  if (status >= 500) return new ProviderError("provider_server_error", say("server error"), init);
  if (status === 401)
    return new ProviderError(
      "provider_auth",
      say("authentication failed (check the API key)"),
      init,
    );
  if (status === 403)
    return new ProviderError("provider_permission", say("permission denied"), init);
  if (status === 404)
    return new ProviderError(
      "provider_not_found",
      say("not found (check the model name and base_url)"),
      init,
    );
  if (status >= 400)
    return new ProviderError("provider_bad_request", say("request rejected"), init);
  return new ProviderError("provider_error", say("unexpected status"), init);
}

/** `Retry-After` (seconds or an HTTP date) and OpenAI's `retry-after-ms`, in ms. */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)))
    return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
