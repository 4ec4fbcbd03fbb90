import { withoutParsedQuote } from "../../core/cut-quote.js";
import { SpellbookError } from "../../core/errors.js";
import { classifyHttpError, parseRetryAfter, ProviderError } from "../errors.js";
import { MAX_ANSWER_BYTES } from "./pooled-request.js";
import { redactedError } from "./redact-error.js";

/** What both SDKs' APIError carries (openai and @anthropic-ai/sdk share the shape). */
interface SDKErrorShape {
  name?: string;
  message?: string;
  status?: number;
  headers?: { get(name: string): string | null };
  error?: unknown;
  constructor?: { name?: string };
}

/**
 * Any failure of an SDK call → a coded ProviderError, its message redacted (PROD-8: a 401 body
 * may echo part of the key). The SDK's error stays its `cause`, redacted in place once read:
 * an error printed whole (util.inspect shows the cause, its body and headers) shows no secret.
 * Duck-typed so this module never loads an SDK.
 */
export function fromSDKError(
  err: unknown,
  provider: string,
  redact: (t: string) => string,
  bodies?: ErrorBodies,
): unknown {
  const coded = codedError(err, provider, redact, bodies);
  if (coded !== err && coded instanceof Error) {
    // An error that cannot be redacted where it is (frozen, a property that cannot be
    // redefined) is kept as a redacted copy of itself instead.
    const shown = redactedError(err, redact);
    if (shown !== err)
      Object.defineProperty(coded, "cause", { value: shown, writable: true, configurable: true });
  }
  return coded;
}

function codedError(
  err: unknown,
  provider: string,
  redact: (t: string) => string,
  bodies?: ErrorBodies,
): unknown {
  if (err instanceof SpellbookError) return err;
  if (isAbort(err)) return err;
  const e = (err ?? {}) as SDKErrorShape;
  const kind = e.constructor?.name ?? e.name ?? "";
  if (kind === "APIConnectionTimeoutError") {
    return new ProviderError("provider_connection", `${provider}: request timed out`, {
      provider,
      cause: err,
    });
  }
  if (hasCode(err, "UND_ERR_RES_EXCEEDED_MAX_SIZE")) return tooLarge(err, provider);
  if (kind === "APIConnectionError" || isNetworkError(err)) {
    const why = causeMessage(err);
    return new ProviderError(
      "provider_connection",
      redact(`${provider}: connection failed${why ? `: ${why}` : ""}`),
      { provider, cause: err },
    );
  }
  if (err instanceof SyntaxError) {
    return new ProviderError(
      "provider_bad_response",
      redact(`${provider}: the response is not valid JSON: ${withoutParsedQuote(err.message)}`),
      { provider, cause: err },
    );
  }
  if (typeof e.status === "number" || (kind === "APIError" && e.error !== undefined)) {
    let body = bodyOf(e.error);
    // The openai SDK keeps only `body.error`; servers that shape errors otherwise (vLLM's
    // { message }, Gemini's [{ error }]) are read from the captured raw body instead.
    if (body.message === undefined && e.headers) body = bodyOf(bodies?.get(e.headers));
    // Redacted whole, then cut: a cut first could keep the start of a secret no redactor knows.
    const message = quoted(redact(body.message ?? stripStatus(e.message ?? "request failed")));
    return classifyHttpError(provider, e.status, message, {
      // The provider's own code is its text too: a server may echo the key into it.
      providerCode: body.code === undefined ? undefined : redact(body.code),
      retryAfterMs: parseRetryAfter(e.headers),
      cause: err,
    });
  }
  if (err instanceof Error) {
    return new ProviderError("provider_error", redact(`${provider}: ${err.message}`), {
      provider,
      cause: err,
    });
  }
  return new ProviderError("provider_error", redact(`${provider}: ${String(err)}`), {
    provider,
    cause: err,
  });
}

/**
 * Raw bodies of failed responses, by their Headers object (the SDKs hand the same object to
 * their errors). Filled by the fetch the adapter passes to its SDK; nothing global is touched.
 */
export class ErrorBodies {
  private readonly bodies = new WeakMap<object, unknown>();

  /** Wraps `inner` so the body of every non-2xx response is kept for the error message. */
  fetch(inner: typeof fetch = globalThis.fetch): typeof fetch {
    return async (input, init) => {
      const response = await inner(input, init);
      if (!response.ok) {
        const text = await response
          .clone()
          .text()
          .catch(() => "");
        this.bodies.set(response.headers, parseMaybe(text));
      }
      return response;
    };
  }

  /** Keeps a failed response's body read elsewhere (the direct JSON path), as `fetch` would. */
  keep(headers: object, text: string): void {
    this.bodies.set(headers, parseMaybe(text));
  }

  get(headers: object): unknown {
    return this.bodies.get(headers);
  }
}

/** A body that is not JSON is kept whole (an answer is bounded: MAX_ANSWER_BYTES), cut once redacted. */
function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.trim() === "" ? undefined : text;
  }
}

/** How much of the provider's message an error quotes. */
const QUOTED_CHARS = 500;

function quoted(text: string): string {
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
}

/** The provider's own message and code out of an error body, whichever provider shaped it. */
function bodyOf(error: unknown): { message?: string; code?: string } {
  if (typeof error === "string") return { message: error };
  if (Array.isArray(error)) return bodyOf(error[0]);
  if (!error || typeof error !== "object") return {};
  const o = error as Record<string, unknown>;
  if (typeof o["detail"] === "string" && o["message"] === undefined && o["error"] === undefined)
    return { message: o["detail"] };
  // openai: { message, type, code }; anthropic: { type: "error", error: { type, message } }
  const inner = (o["error"] && typeof o["error"] === "object" ? o["error"] : o) as Record<
    string,
    unknown
  >;
  const message = typeof inner["message"] === "string" ? inner["message"] : undefined;
  const code =
    typeof inner["code"] === "string"
      ? inner["code"]
      : typeof inner["type"] === "string"
        ? inner["type"]
        : undefined;
  return { ...(message !== undefined ? { message } : {}), ...(code !== undefined ? { code } : {}) };
}

/** SDK messages start with the status ("429 Too many requests"); the error carries it already. */
function stripStatus(message: string): string {
  return message.replace(/^\d{3}\s+/, "");
}

function isAbort(err: unknown): boolean {
  const e = err as SDKErrorShape | null;
  return !!e && (e.name === "AbortError" || e.constructor?.name === "APIUserAbortError");
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** An answer cut by the pool (pooled-request.ts): not retried, the same one would be cut again. */
function tooLarge(err: unknown, provider: string): ProviderError {
  return new ProviderError(
    "provider_bad_response",
    `${provider}: the answer is larger than ${MAX_ANSWER_BYTES / 2 ** 20} MiB`,
    { provider, cause: err },
  );
}

/** Does `err` or an error under it (its causes) carry `code`? */
function hasCode(err: unknown, code: string): boolean {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  )
    if (e.code === code) return true;
  return false;
}

/** undici reports a socket closed mid-body as `TypeError: terminated` with a coded cause. */
function isNetworkError(err: unknown): boolean {
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return true;
    if (
      e instanceof TypeError &&
      /terminated|fetch failed|other side closed/i.test(e.message ?? "")
    )
      return true;
  }
  return false;
}

function causeMessage(err: unknown): string {
  const parts: string[] = [];
  for (
    let e = (err as { cause?: unknown; message?: string } | undefined)?.cause as
        { cause?: unknown; message?: string; code?: string } | undefined,
      d = 0;
    e && d < 3;
    e = e.cause as typeof e, d++
  ) {
    if (e.message) parts.push(e.code ? `${e.message} (${e.code})` : e.message);
  }
  if (!parts.length && err instanceof Error && !/^Connection error\.?$/.test(err.message))
    parts.push(err.message);
  return parts.join(": ");
}
