/**
 * The fetch gate: HTTP(S) requests to the hosts a spell allows, nothing else. Secure by default:
 * no allowlist means no host; a URL is checked against the list before any name is looked up or
 * socket opened, and so is every redirect (followed here, one hop at a time, never by the client).
 */
import { cutQuote } from "../../core/cut-quote.js";
import type { Gate } from "../gate.js";
import {
  checkAllowed,
  parseAllowEntry,
  parseTarget,
  shownUrl,
  type AllowEntry,
} from "./fetch-allow.js";
import { readCapped, reachError } from "./fetch-body.js";

export const DEFAULT_FETCH_MAX_BYTES = 1024 * 1024;
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
export const DEFAULT_FETCH_MAX_REDIRECTS = 5;
export const FETCH_METHODS = ["GET", "HEAD", "POST"] as const;
type Method = (typeof FETCH_METHODS)[number];

export interface FetchOptions {
  /** Hosts the gate may reach (CIRCLE-10: fixed at construction); empty or absent = none. */
  allow?: readonly string[];
  /** Largest response body read, in bytes; a larger one is an error. Default 1 MiB. */
  maxBytes?: number;
  /** Time for the whole exchange, redirects and body included. Default 10 s. */
  timeoutMs?: number;
  /** Methods the entity may use. Default GET only; HEAD and POST (with a text body) when listed. */
  methods?: readonly Method[];
  /** Redirect hops followed, each re-checked against `allow`. Default 5. */
  maxRedirects?: number;
  /** The HTTP client; default the global fetch (passed in by tests, never patched). */
  fetch?: typeof globalThis.fetch;
}

interface Request {
  url: URL;
  method: Method;
  body: string | undefined;
  contentType: string | undefined;
}

export function fetchGate(options: FetchOptions = {}): Gate {
  const allow = (options.allow ?? []).map(parseAllowEntry);
  const methods: readonly Method[] = options.methods ?? ["GET"];
  const limits = {
    maxBytes: options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
    maxRedirects: options.maxRedirects ?? DEFAULT_FETCH_MAX_REDIRECTS,
  };
  const client = options.fetch ?? globalThis.fetch;
  return {
    name: "fetch",
    description:
      `HTTP ${methods.join("/")} to an allowed host (${allow.map((e) => e.text).join(", ") || "none allowed"}). ` +
      "Returns text: the status line, then a blank line, then the body. A non-2xx status is an error.",
    parameters: {
      type: "object",
      properties: {
        url: { type: "string", description: "Absolute URL, e.g. https://api.github.com/zen" },
        method: { type: "string", description: `One of ${methods.join(", ")}; default GET.` },
        ...(methods.includes("POST")
          ? {
              body: { type: "string", description: "POST only: the request body, as text." },
              content_type: { type: "string", description: "POST only: default text/plain." },
            }
          : {}),
      },
      required: ["url"],
    },
    execute: (args, ctx) =>
      exchange(requestOf(args, methods, allow), allow, limits, client, ctx.signal),
  };
}

/** The request as asked for, refused before any network work when it may not go out. */
function requestOf(
  args: Record<string, unknown>,
  methods: readonly Method[],
  allow: readonly AllowEntry[],
): Request {
  const url = parseTarget(args["url"]);
  const method = (typeof args["method"] === "string" ? args["method"] : "GET").toUpperCase();
  if (!(methods as readonly string[]).includes(method))
    throw new Error(`fetch: method ${method} is not allowed (${methods.join(", ")})`);
  const body = args["body"];
  if (body !== undefined && (method !== "POST" || typeof body !== "string"))
    throw new Error("fetch: a body is a string, sent with POST only");
  const contentType = args["content_type"];
  checkAllowed(allow, url);
  return {
    url,
    method: method as Method,
    body: body,
    contentType: typeof contentType === "string" ? contentType : undefined,
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function exchange(
  first: Request,
  allow: readonly AllowEntry[],
  limits: { maxBytes: number; timeoutMs: number; maxRedirects: number },
  client: typeof globalThis.fetch,
  outer: AbortSignal,
): Promise<string> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, limits.timeoutMs);
  const stop = (): void => controller.abort(outer.reason);
  if (outer.aborted) stop();
  else outer.addEventListener("abort", stop, { once: true });
  let request = first;
  try {
    for (let hop = 0; ; hop++) {
      const response = await client(request.url, {
        method: request.method,
        redirect: "manual",
        signal: controller.signal,
        ...(request.body !== undefined
          ? {
              body: request.body,
              headers: { "content-type": request.contentType ?? "text/plain; charset=utf-8" },
            }
          : {}),
      });
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        request = redirected(request, response.status, location, allow, hop, limits.maxRedirects);
        continue;
      }
      const text = await readCapped(response, limits.maxBytes, request.url);
      const status = `${response.status} ${response.statusText}`.trim();
      if (!response.ok)
        throw new Error(
          // Not through a key-like run: a server may echo a secret the redactor knows whole.
          `fetch: ${shownUrl(request.url)} answered ${status}\n${cutQuote(text, 2000)}`,
        );
      return `${status}\n\n${text}`;
    }
  } catch (err) {
    if (timedOut)
      throw new Error(`fetch: ${request.url.host} did not answer within ${limits.timeoutMs} ms`);
    throw reachError(err, request.url, outer);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", stop);
  }
}

/** The next hop of a redirect, checked like the first request (a redirect is a new request). */
function redirected(
  from: Request,
  status: number,
  location: string,
  allow: readonly AllowEntry[],
  hop: number,
  maxRedirects: number,
): Request {
  if (hop >= maxRedirects)
    throw new Error(`fetch: more than ${maxRedirects} redirects from ${shownUrl(from.url)}`);
  const url = parseTarget(location, from.url);
  try {
    checkAllowed(allow, url);
  } catch (err) {
    throw new Error(
      `fetch: redirect from ${from.url.host} refused: ${(err as Error).message.replace(/^fetch: /, "")}`,
    );
  }
  // 303 (and 301/302 after a POST, as browsers do) continue as a GET without the body.
  const toGet = status === 303 || ((status === 301 || status === 302) && from.method === "POST");
  return toGet ? { url, method: "GET", body: undefined, contentType: undefined } : { ...from, url };
}
