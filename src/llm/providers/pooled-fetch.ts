import { STATUS_CODES } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, request } from "undici";

/**
 * The fetch the provider SDKs are given when a spell names no other (issue 40): undici's
 * `request` over one keep-alive pool of the process, answered as a `Response`. The global fetch
 * builds a Request, web streams for the body both ways and a Headers guard per request, and sends
 * a string body as a stream of chunks; a query through it cost the openai SDK 4–5× the CPU of
 * a bare `undici.request` to the same server (bench/llm.bench.mjs). Here the body goes out in one
 * write, a JSON answer is read whole into one buffer, and a stream (SSE) is handed on as the
 * socket gives it.
 *
 * What this does not do itself it leaves to the global fetch, as before: a request that is not
 * a URL and a string or byte body, a caller's `redirect` other than following, and a redirect
 * the server answers with (the request is sent again through the global fetch, which follows it
 * as the fetch standard says, dropping credentials across origins). A body the server
 * compressed (gzip, deflate, br) is decompressed, as the global fetch does.
 */
let pool: Agent | undefined;

type Body = ConstructorParameters<typeof Response>[0];
type HeadersGiven = NonNullable<RequestInit["headers"]>;

/** Statuses whose Response has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function pooledFetch(fallback: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init = {}) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : null;
    const body = init.body;
    const plainBody =
      body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
    const follows = init.redirect === undefined || init.redirect === "follow";
    if (url === null || !plainBody || !follows || !/^https?:/i.test(url))
      return fallback(input, init);
    pool ??= new Agent();
    const res = await request(url, {
      method: (init.method ?? "GET") as "GET",
      headers: plainHeaders(init.headers),
      body: body ?? null,
      signal: init.signal ?? null,
      dispatcher: pool,
    });
    const status = res.statusCode;
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers))
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.append(name, value);
    if (status >= 300 && status < 400 && headers.has("location")) {
      res.body.resume(); // the connection goes back to the pool
      return fallback(input, init);
    }
    let content: Body = null;
    const answer = { status, statusText: STATUS_CODES[status] ?? "", headers };
    if (NULL_BODY.has(status)) res.body.resume();
    else {
      const decoded = decode(res.body, headers.get("content-encoding"));
      if (/text\/event-stream/i.test(headers.get("content-type") ?? ""))
        content = decoded as unknown as Body; // handed on as it arrives (an async iterable)
      else {
        const bytes = Buffer.concat(await decoded.toArray());
        // A success is read once, whole (issue 40: no web stream over a buffer already read);
        // a failure stays a plain Response (the error wrapper reads a clone of it).
        if (status >= 200 && status < 300) return located(bufferedResponse(bytes, answer), url);
        content = bytes;
      }
    }
    return located(new Response(content, answer), url);
  };
}

/** A Response made here has no URL of its own; the SDKs name it in what they report. */
function located(response: Response, url: string): Response {
  Object.defineProperty(response, "url", { value: url });
  return response;
}

/**
 * A response whose body was read whole: `json()`, `text()` and `arrayBuffer()` read that buffer
 * (once, as a Response's body is read once); `body` hands it on as a stream, and `clone()`
 * copies the response, for whoever wants either. Own properties over a Response without a body,
 * so it is a Response to every check and to both typings of one (the DOM's and undici's).
 */
function bufferedResponse(bytes: Buffer, init: ResponseInit): Response {
  const response = new Response(null, init);
  let used = false;
  const take = (): Buffer => {
    if (used) throw new TypeError("Body is unusable: Body has already been read");
    used = true;
    return bytes;
  };
  const read = <T>(as: (b: Buffer) => T) => ({
    value: () => new Promise<T>((resolve) => resolve(as(take()))),
  });
  return Object.defineProperties(response, {
    bodyUsed: { get: () => used },
    body: { get: () => new Response(new Uint8Array(take())).body },
    text: read(utf8),
    json: read((b) => JSON.parse(utf8(b)) as unknown),
    arrayBuffer: read((b) => new Uint8Array(b).buffer),
    clone: {
      value: () => {
        if (used) throw new TypeError("Response.clone: Body has already been consumed.");
        return located(bufferedResponse(bytes, init), response.url);
      },
    },
  });
}

/** UTF-8 text without a leading byte order mark, as a Response's `text()` reads it. */
function utf8(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `init.headers` (a Headers, pairs or a record) as the record undici sends. */
function plainHeaders(given: HeadersGiven | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!given) return out;
  const pairs = (
    given instanceof Headers || Array.isArray(given) ? given : Object.entries(given)
  ) as Iterable<[string, string | readonly string[]]>;
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const text = typeof value === "string" ? value : value.join(", ");
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  }
  return out;
}

/** The body as the server meant it: decompressed when it says how (the global fetch does too). */
function decode(body: Readable, encoding: string | null): Readable {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return pipeline(body, createGunzip(), ignore);
    case "deflate":
      return pipeline(body, createInflate(), ignore);
    case "br":
      return pipeline(body, createBrotliDecompress(), ignore);
    default:
      return body;
  }
}

/** pipeline's callback: a failure reaches the reader through the last stream, which it destroys. */
const ignore = (): void => {};
