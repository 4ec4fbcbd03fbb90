import { pipeline, Transform, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, errors, request, type Dispatcher } from "undici";

// The process's keep-alive pool and one request over it, its redirects followed within its
// origin, and what reading its answer needs: shared by pooledFetch (the fetch the provider
// SDKs are given) and the direct JSON path (direct-json.ts), issue 40.

let pool: Agent | undefined;

/**
 * The most bytes of one answer, as sent and as decompressed: past it the answer is cut and its
 * request fails (`UND_ERR_RES_EXCEEDED_MAX_SIZE`; the adapters report a bad response, never
 * retried). A provider's answer is a few MB; without a bound an endless body, or a gzip or br
 * body of a few hundred KB that decompresses to gigabytes, was held whole until memory ran out.
 * Below the longest string V8 makes (2^29 - 24 characters), which ended a larger one anyway.
 */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** The process's keep-alive pool, made on first use (pooledFetch and the direct JSON path share it). */
export function pooledAgent(): Agent {
  return (pool ??= new Agent({ maxResponseSize: MAX_ANSWER_BYTES }));
}

/** Redirects followed before the request fails, as the fetch standard counts them. */
const MAX_REDIRECTS = 20;

/** The statuses the fetch standard follows; any other 3xx (300, 304, 305…) is the answer. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers that describe a body, dropped with it when a redirect turns a POST into a GET. */
const BODY_HEADERS = new Set([
  "content-type",
  "content-encoding",
  "content-language",
  "content-location",
]);

type RequestHeaders = Record<string, string> | Iterable<[string, string]>;

/**
 * One request over the pool, its redirects followed within the origin it was sent to (the
 * answer and the URL that gave it). A redirect to another origin, or one that cannot be read,
 * is the answer: what the request carries (the API key) never goes where an answer points.
 * `signal`: an AbortSignal, or any object undici takes as one.
 */
export async function pooledRequest(
  url: string,
  method: string,
  headers: RequestHeaders,
  body: string | Uint8Array | null,
  signal: unknown,
): Promise<{ res: Dispatcher.ResponseData; url: string }> {
  let origin: string | undefined; // parsed only when a redirect asks (~1% of a query's CPU)
  for (let hops = 0; ; hops++) {
    const res = await request(url, {
      method: method as "GET",
      headers: headers as Record<string, string>,
      body,
      signal: signal as AbortSignal | null,
      dispatcher: pooledAgent(),
    });
    const status = res.statusCode;
    const location = REDIRECTS.has(status) ? joined(res.headers["location"]) : null;
    if (location === null) return { res, url };
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return { res, url };
    }
    origin ??= new URL(url).origin;
    if (next.origin !== origin) return { res, url };
    res.body.resume(); // the connection goes back to the pool
    if (hops === MAX_REDIRECTS)
      throw new TypeError("fetch failed", { cause: new Error("redirect count exceeded") });
    if (
      ((status === 301 || status === 302) && method === "POST") ||
      (status === 303 && method !== "GET" && method !== "HEAD")
    ) {
      method = "GET";
      body = null;
      headers = Object.fromEntries(
        [...(Symbol.iterator in headers ? headers : Object.entries(headers))].filter(
          ([name]) => !BODY_HEADERS.has(name.toLowerCase()),
        ),
      );
    }
    url = next.href;
  }
}

/** The headers undici read (names in lower case; a repeated one as an array). */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** A header's value as `Headers#get` gives it: repeated values joined with ", ". */
export function joined(value: string | string[] | undefined): string | null {
  return value === undefined ? null : typeof value === "string" ? value : value.join(", ");
}

export function toHeaders(raw: RawHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw))
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  return headers;
}

/** Decodes as a Response does: UTF-8, a byte-order mark dropped. */
export const utf8 = new TextDecoder();

/**
 * The body as the server meant it: decompressed when it says how (the global fetch does too),
 * no more than MAX_ANSWER_BYTES of it (the pool bounds the bytes sent; this, what they become).
 */
export function decode(body: Readable, encoding: string | null): Readable {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return pipeline(body, createGunzip(), bounded(), ignore);
    case "deflate":
      return pipeline(body, createInflate(), bounded(), ignore);
    case "br":
      return pipeline(body, createBrotliDecompress(), bounded(), ignore);
    default:
      return body;
  }
}

/** Passes bytes on until there are more than MAX_ANSWER_BYTES, then fails as the pool does. */
function bounded(): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) done(new errors.ResponseExceededMaxSizeError());
      else done(null, chunk);
    },
  });
}

/** pipeline's callback: a failure reaches the reader through the last stream, which it destroys. */
const ignore = (): void => {};
