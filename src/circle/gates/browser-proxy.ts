/**
 * The browser's second wall: a page's requests all go through this loopback proxy (one per
 * page), which forwards only what the allow list lets through. Request routing
 * (browser-pages.ts) aborts a denied request before it leaves; the proxy also sees the hops
 * routing never does: the next request of a redirect, which the driver continues unasked.
 */
import type * as Http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type * as Net from "node:net";
import type { AddressInfo, Socket } from "node:net";
import { lazyBuiltin } from "../../core/builtin.js";
import { checkAllowed, type AllowEntry } from "./fetch-allow.js";

// Loaded with the first page's proxy: every spell's start loads this module (the gate registry)
// and node:http costs a run's start-up several milliseconds (bench/loop.bench.mjs, `spell run`).
const http = lazyBuiltin<typeof Http>("node:http");
const net = lazyBuiltin<typeof Net>("node:net");

/** Set on the proxy's refusal (percent-encoded), so the gate can tell it from a site's 403. */
export const DENIED_HEADER = "x-spellbook-denied";

export interface AllowProxy {
  /** `http://127.0.0.1:PORT`, for the browser context's proxy setting. */
  readonly server: string;
  close(): void;
}

/** Why the allow list refuses this URL, or null when it lets it through. */
export function refusal(allow: readonly AllowEntry[], url: URL): string | null {
  try {
    checkAllowed(allow, url, "browser");
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

export async function startAllowProxy(allow: readonly AllowEntry[]): Promise<AllowProxy> {
  const sockets = new Set<Socket>();
  const server = http().createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const denied = url.protocol === "http:" ? refusal(allow, url) : "browser: http only here";
    if (denied !== null) {
      refuse(res, denied);
      return;
    }
    forward(req, url, (status, headers, body) => {
      res.writeHead(status, headers);
      body.pipe(res);
    }).on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  });
  // https (and ws over it) arrive as CONNECT host:port: the tunnel opens only to an allowed pair.
  server.on("connect", (req: IncomingMessage, client: Socket) => {
    const target = connectTarget(req.url ?? "");
    if (!target) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const { host, port } = target;
    const allowed = ["https:", "http:"].some(
      (scheme) => refusal(allow, new URL(`${scheme}//${host}:${port}/`)) === null,
    );
    if (!allowed) {
      client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = net().connect(Number(port), host.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

/** The proxy's 403; the reason percent-encoded in the header (an allow entry may be Unicode). */
function refuse(res: ServerResponse, denied: string): void {
  const headers = { "content-type": "text/plain; charset=utf-8" };
  res.writeHead(403, { ...headers, [DENIED_HEADER]: encodeURIComponent(denied) }).end(denied);
}

function forward(
  req: IncomingMessage,
  url: URL,
  answer: (status: number, headers: IncomingMessage["headers"], body: IncomingMessage) => void,
) {
  const headers = { ...req.headers };
  delete headers["proxy-connection"];
  delete headers["proxy-authorization"];
  const upstream = http().request(
    {
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port || 80,
      method: req.method,
      path: url.pathname + url.search,
      headers,
    },
    (res) => answer(res.statusCode ?? 502, res.headers, res),
  );
  req.pipe(upstream);
  return upstream;
}

/**
 * A CONNECT target, `host:port`, as the URL parser reads it (what is checked is what is dialled),
 * or null when it is anything else (a local process, not Chromium, may send it).
 */
function connectTarget(target: string): { host: string; port: string } | null {
  let url: URL;
  try {
    url = new URL(`https://${target}/`);
  } catch {
    return null;
  }
  // Only a target already in the parser's own spelling: nothing it would have to reinterpret.
  const canonical = target.toLowerCase().replace(/:443$/, "") === url.host;
  const plain = url.pathname === "/" && !url.search && !url.hash && !url.username;
  return canonical && plain ? { host: url.hostname, port: url.port || "443" } : null;
}
