import { STATUS_CODES } from "node:http";
import {
  decode,
  joined,
  pooledRequest,
  toHeaders,
  utf8,
  type RawHeaders,
} from "./pooled-request.js";

type Body = ConstructorParameters<typeof Response>[0];
type HeadersGiven = NonNullable<RequestInit["headers"]>;

/** Statuses whose Response has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The fetch the provider SDKs are given when a spell names no other (issue 40): undici's
 * `request` over one keep-alive pool of the process, answered as a `Response`. The global fetch
 * builds a Request, web streams for the body both ways and a Headers guard per request, and sends
 * a string body as a stream of chunks; a query through it cost the openai SDK 4–5× the CPU of
 * a bare `undici.request` to the same server (bench/llm.bench.mjs). Here the body goes out in one
 * write, a JSON answer is read whole into one buffer (a 2xx one answered by `ReadResponse`,
 * which reads it without a web stream), and a stream (SSE) is handed on as the socket gives it.
 *
 * What this does not do itself it leaves to the global fetch, as before: a request that is not
 * a URL and a string or byte body, and a caller's `redirect` other than following. A redirect
 * is followed here (`pooledRequest`), as the fetch standard says (a POST answered 301, 302 or
 * 303 is sent again as a GET without its body), but only within the origin the request was
 * sent to: the SDKs' headers carry the API key (`x-api-key` and a spell's own headers too, which
 * the global fetch would send on to another origin), so a redirect elsewhere is the answer, and
 * the SDK reports its status. A body the server compressed (gzip, deflate, br) is decompressed,
 * as the global fetch does.
 */
export function pooledFetch(fallback: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init = {}) => {
    let url = typeof input === "string" ? input : input instanceof URL ? input.href : null;
    const body = init.body;
    const plainBody =
      body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
    const follows = init.redirect === undefined || init.redirect === "follow";
    if (url === null || !plainBody || !follows || !/^https?:/i.test(url))
      return fallback(input, init);
    const sent = await pooledRequest(
      url,
      init.method ?? "GET",
      plainHeaders(init.headers),
      body ?? null,
      init.signal ?? null,
    );
    const res = sent.res;
    url = sent.url;
    const status = res.statusCode;
    const raw = res.headers;
    const statusText = STATUS_CODES[status] ?? "";
    if (NULL_BODY.has(status)) {
      res.body.resume();
      return withUrl(new Response(null, { status, statusText, headers: toHeaders(raw) }), url);
    }
    const encoding = joined(raw["content-encoding"]);
    if (/text\/event-stream/i.test(joined(raw["content-type"]) ?? "")) {
      // handed on as it arrives (Node reads it as an async iterable)
      const stream = decode(res.body, encoding) as unknown as Body;
      return withUrl(new Response(stream, { status, statusText, headers: toHeaders(raw) }), url);
    }
    const bytes = encoding
      ? Buffer.concat(await decode(res.body, encoding).toArray())
      : Buffer.from(await res.body.arrayBuffer());
    if (status < 200 || status > 299)
      return withUrl(new Response(bytes, { status, statusText, headers: toHeaders(raw) }), url);
    const headers = new ReadHeaders(raw) as unknown as Headers;
    return new ReadResponse(bytes, status, statusText, headers, url) as unknown as Response;
  };
}

/**
 * A successful answer's headers, read as a response's `Headers` reads them (immutable, names
 * in lower case, entries sorted by name, each set-cookie apart) straight from undici's record:
 * building a `Headers` validates every name and value again, ~5% of a query's CPU.
 */
export class ReadHeaders {
  readonly #raw: RawHeaders;

  constructor(raw: RawHeaders) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    return joined(this.#raw[name.toLowerCase()]);
  }

  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    const value = this.#raw["set-cookie"];
    return value === undefined ? [] : typeof value === "string" ? [value] : [...value];
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#raw).sort()) {
      const value = this.#raw[name];
      if (value === undefined) continue;
      if (name === "set-cookie" && Array.isArray(value)) for (const v of value) yield [name, v];
      else yield [name, joined(value)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string, headers: this) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) fn.call(thisArg, value, name, this);
  }

  append(): never {
    throw new TypeError("immutable");
  }

  set(): never {
    throw new TypeError("immutable");
  }

  delete(): never {
    throw new TypeError("immutable");
  }
}

/** A Response made here has no URL of its own; the SDKs name it in what they report. */
function withUrl(response: Response, url: string): Response {
  Object.defineProperty(response, "url", { value: url });
  return response;
}

/**
 * A successful answer read whole, as a `Response` reads it: `text()`, `json()`, `arrayBuffer()`
 * and `bytes()` straight from the bytes, once (a second read is the TypeError fetch throws).
 * Building undici's Response and reading it back through a web stream cost a third of the
 * client's CPU per query (bench/llm.bench.mjs); what the SDKs do not read (`body`, `blob()`,
 * `formData()`, `clone()`) comes from a real Response made on first use.
 */
class ReadResponse {
  readonly ok = true;
  readonly redirected = false;
  readonly type = "basic";
  readonly #bytes: Buffer;
  #used = false;
  #full: Response | undefined;

  constructor(
    bytes: Buffer,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly url: string,
  ) {
    this.#bytes = bytes;
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#full?.bodyUsed ?? false);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#real().body;
  }

  async text(): Promise<string> {
    return this.#full ? this.#full.text() : utf8.decode(this.#take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#full) return this.#full.arrayBuffer();
    const b = this.#take();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#full
      ? new Uint8Array(await this.#full.arrayBuffer())
      : new Uint8Array(this.#take());
  }

  blob(): Promise<Blob> {
    return this.#real().blob();
  }

  formData(): Promise<FormData> {
    return this.#real().formData();
  }

  clone(): Response {
    return withUrl(this.#real().clone(), this.url);
  }

  #take(): Buffer {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#bytes;
  }

  /** The same answer as undici's Response (its body unread unless this one was read), which
   * answers every read from then on. */
  #real(): Response {
    if (!this.#full) {
      const { status, statusText, headers } = this;
      const content: Body = this.#used ? null : (this.#bytes as Body);
      this.#full = withUrl(new Response(content, { status, statusText, headers }), this.url);
    }
    return this.#full;
  }
}

/**
 * `init.headers` as undici takes them. A `Headers` (what both SDKs build for every request) is
 * handed over as it is: its entries are already lower-case, one per name, repeated values
 * joined, and undici reads them as pairs (a record built from it cost a query ~2% of its CPU).
 * Pairs or a record become a record of lower-case names, repeated values joined with ", ".
 */
function plainHeaders(
  given: HeadersGiven | undefined,
): Record<string, string> | Iterable<[string, string]> {
  if (given instanceof Headers && !given.has("set-cookie"))
    return given as unknown as Iterable<[string, string]>;
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
