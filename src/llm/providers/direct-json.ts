import { ReadHeaders } from "./pooled-fetch.js";
import { decode, joined, pooledRequest, toHeaders, utf8 } from "./pooled-request.js";
import type { ErrorBodies } from "./sdk-errors.js";
import { timerDelay } from "../../core/clock.js";

/**
 * One plain JSON POST to a provider without the SDK's request path (issue 40): the request the
 * SDK would send, captured from the SDK once per client (`capturedFrom`), sent over the pooled
 * keep-alive dispatcher, its answer read as the SDK reads it, and its failures thrown as the SDK's
 * own error classes, made as the SDK makes them. What it cost: the SDK's request path (headers
 * built into a `Headers` three times, log details formatted with logging off, ~10 awaits, an
 * AbortController per request) was ~3.9× a bare `undici.request`; spell's adapter ~4.2× (BENCH.md).
 *
 * The adapters use it only for a non-streamed request with no per-request options but the cast's
 * signal, when the spell gave no fetch of its own and the capture proved the request plain (a
 * method, headers and a JSON body, nothing else); everything else goes through the SDK.
 */

/** The SDK's error classes, passed in by the adapter (this module never loads an SDK). */
export interface SDKErrorClasses {
  APIError: {
    generate(
      status: number | undefined,
      error: object | undefined,
      message: string | undefined,
      headers: Headers | undefined,
    ): Error;
  };
  APIConnectionError: new (options: { cause?: Error | undefined }) => Error;
  APIConnectionTimeoutError: new () => Error;
  APIUserAbortError: new () => Error;
}

/** What the SDK sends for one JSON POST: its URL, its headers in the order it sends them, its timeout. */
export interface CapturedRequest {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** What a Stainless SDK's `buildRequest` gives (openai and @anthropic-ai/sdk share it). */
export interface BuiltRequest {
  req: Record<string, unknown>;
  url: string;
  timeout: number;
}

/**
 * The request the SDK builds for `probe`, if it is plain: method POST, a `Headers`, and the body
 * `JSON.stringify(probe)`, nothing else (no fetch options, no signal, no stream). Headers that
 * change per request (an idempotency key) are not captured, so the caller names none such.
 */
export function capturedFrom(built: BuiltRequest, probe: unknown): CapturedRequest | undefined {
  const { req, url, timeout } = built;
  const keys = Object.keys(req).sort().join(",");
  if (keys !== "body,headers,method") return undefined;
  if (String(req["method"]).toUpperCase() !== "POST") return undefined;
  if (req["body"] !== JSON.stringify(probe)) return undefined;
  if (!(req["headers"] instanceof Headers)) return undefined;
  if (typeof timeout !== "number" || !/^https?:\/\//i.test(url)) return undefined;
  const headers: Record<string, string> = {};
  // A Headers iterates as undici reads it: names in lower case, sorted, one entry per name.
  for (const [name, value] of req["headers"] as unknown as Iterable<[string, string]>) {
    if (name in headers) return undefined; // set-cookie twice: not a request header we send
    headers[name] = value;
  }
  return { url, headers, timeoutMs: timeout };
}

/** An answer, read whole. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Statuses whose answer has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export class DirectJSON {
  readonly #target: CapturedRequest;
  readonly #errors: SDKErrorClasses;
  readonly #bodies: ErrorBodies;
  readonly #requestIdHeader: string;

  /** `requestIdHeader`: the header the SDK copies to the body's `_request_id`. */
  constructor(
    target: CapturedRequest,
    errors: SDKErrorClasses,
    bodies: ErrorBodies,
    requestIdHeader: string,
  ) {
    this.#target = target;
    this.#errors = errors;
    this.#bodies = bodies;
    this.#requestIdHeader = requestIdHeader;
  }

  /** POSTs `body`; the parsed answer as the SDK's non-streamed call returns it, or its error. */
  async post(body: unknown, signal?: AbortSignal): Promise<unknown> {
    const { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } =
      this.#errors;
    if (signal?.aborted) throw new APIUserAbortError();
    const text = JSON.stringify(body);
    const deadline = new Deadline(this.#target.timeoutMs, signal);
    let answer: Answer;
    try {
      answer = await this.#send(text, deadline);
    } catch (err) {
      // as the SDK's request method does: the cast's cancel first, then a timeout, then the connection
      const error = err instanceof Error ? err : new Error(String(err));
      if (signal?.aborted) throw new APIUserAbortError();
      if (isTimeout(error)) throw new APIConnectionTimeoutError();
      throw new APIConnectionError({ cause: error });
    } finally {
      deadline.clear();
    }
    const { status, headers, text: answerText } = answer;
    if (status < 200 || status > 299) {
      const errText = answerText;
      const errJSON = safeJSON(errText);
      throw APIError.generate(
        status,
        errJSON as object | undefined,
        errJSON ? undefined : errText,
        headers,
      );
    }
    // as the SDK parses the answer of a non-streamed request
    if (status === 204) return null;
    const mediaType = headers.get("content-type")?.split(";")[0]?.trim();
    const isJSON = mediaType?.includes("application/json") || mediaType?.endsWith("+json");
    if (!isJSON) return answerText;
    if (headers.get("content-length") === "0") return undefined;
    const json = JSON.parse(answerText) as unknown;
    if (!json || typeof json !== "object" || Array.isArray(json)) return json;
    return Object.defineProperty(json, "_request_id", {
      value: headers.get(this.#requestIdHeader),
      enumerable: false,
    });
  }

  async #send(text: string, deadline: Deadline): Promise<Answer> {
    const { url, headers } = this.#target;
    const { res } = await pooledRequest(url, "POST", headers, text, deadline);
    const status = res.statusCode;
    const raw = res.headers;
    const encoding = joined(raw["content-encoding"]);
    let body = "";
    if (NULL_BODY.has(status)) res.body.resume();
    else if (encoding)
      body = utf8.decode(Buffer.concat(await decode(res.body, encoding).toArray()));
    else body = utf8.decode(await res.body.arrayBuffer());
    if (status >= 200 && status <= 299)
      return { status, headers: new ReadHeaders(raw) as unknown as Headers, text: body };
    // as the ErrorBodies wrapper around the SDK's fetch: the raw body kept for the message
    const errorHeaders = toHeaders(raw);
    this.#bodies.keep(errorHeaders, body);
    return { status, headers: errorHeaders, text: body };
  }
}

function safeJSON(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The SDK's test for a timed-out request (an abort it made itself, or a message saying so). */
function isTimeout(err: Error): boolean {
  return (
    err.name === "AbortError" ||
    /timed? ?out/i.test(String(err) + ("cause" in err ? String(err.cause) : ""))
  );
}

/**
 * The request's signal for undici: aborted when the timeout passes or the cast's signal aborts,
 * with the reason an AbortController gives (an `AbortError`). undici takes any object with
 * `aborted`, `reason` and `addListener`/`removeListener`; an AbortController and its listeners
 * cost a request more (BENCH.md).
 */
class Deadline {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] = [];
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #signal: AbortSignal | undefined;
  readonly #fire = (): void => {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException("This operation was aborted", "AbortError");
    for (const listener of [...this.#listeners]) listener();
  };

  constructor(ms: number, signal: AbortSignal | undefined) {
    this.#timer = setTimeout(this.#fire, timerDelay(ms));
    this.#signal = signal;
    signal?.addEventListener("abort", this.#fire, { once: true });
  }

  on(event: string, listener: () => void): this {
    return this.addListener(event, listener);
  }

  addListener(event: string, listener: () => void): this {
    if (event === "abort") this.#listeners.push(listener);
    return this;
  }

  removeListener(event: string, listener: () => void): this {
    const at = this.#listeners.indexOf(listener);
    if (event === "abort" && at >= 0) this.#listeners.splice(at, 1);
    return this;
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#fire);
  }
}
