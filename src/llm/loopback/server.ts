import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bodyToSSE } from "./stream-body.js";

/**
 * A provider that lives on 127.0.0.1: it answers each request with the next canned reply, in
 * the provider's own wire format (JSON bodies, SSE streams, errors, broken connections), and
 * logs what it received. Real SDKs talk to it through `base_url`; nothing global is patched.
 * Used by the adapter tests and by the conformance runner's `provider: mock_openai`.
 */
export type LoopbackReply =
  /** A body: an object is sent as JSON, a string as it is (a malformed body, say). */
  | { status?: number; headers?: Record<string, string>; body: unknown }
  /** A server-sent event stream as recorded on the wire; `dropAfter` cuts the socket after that many events. */
  | { status?: number; headers?: Record<string, string>; sse: string; dropAfter?: number }
  /** The connection is destroyed before any response. */
  | { drop: true };

export interface LoopbackRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (or the text when it was not JSON). */
  body: unknown;
}

export interface LoopbackServer {
  /** `http://127.0.0.1:PORT` — append the provider's path prefix (`/v1`) for base_url. */
  url: string;
  requests: LoopbackRequest[];
  /** Replies not yet served. */
  pending(): number;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /** Serve the last reply again once the list is used up (a fixed `raw_response`). */
  repeatLast?: boolean;
}

export async function startLoopbackProvider(
  replies: LoopbackReply[],
  options: LoopbackOptions = {},
): Promise<LoopbackServer> {
  const queue = [...replies];
  const requests: LoopbackRequest[] = [];
  let last: LoopbackReply | undefined;
  const server: Server = createServer((req, res) => {
    void readBody(req).then((text) => {
      requests.push({
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body: parseMaybe(text),
      });
      const reply = queue.shift() ?? (options.repeatLast ? last : undefined);
      last = reply ?? last;
      if (!reply) {
        send(res, {
          status: 500,
          body: {
            error: {
              type: "loopback_exhausted",
              message: `loopback provider: no reply left for request ${requests.length}`,
            },
          },
        });
        return;
      }
      serve(req, res, streamed(reply, requests[requests.length - 1]!.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A body answering a streaming request is sent as the provider's event stream, as a real server would. */
function streamed(reply: LoopbackReply, request: unknown): LoopbackReply {
  const wantsStream =
    typeof request === "object" &&
    request !== null &&
    (request as { stream?: unknown }).stream === true;
  if (
    !wantsStream ||
    !("body" in reply) ||
    (reply.status ?? 200) >= 400 ||
    typeof reply.body !== "object" ||
    reply.body === null
  )
    return reply;
  const sse = bodyToSSE(reply.body) ?? `data: ${JSON.stringify(reply.body)}\n\ndata: [DONE]\n\n`;
  return {
    sse,
    ...(reply.status !== undefined ? { status: reply.status } : {}),
    ...(reply.headers ? { headers: reply.headers } : {}),
  };
}

function serve(req: IncomingMessage, res: ServerResponse, reply: LoopbackReply): void {
  if ("drop" in reply) {
    req.socket.destroy();
    return;
  }
  if ("sse" in reply) {
    res.writeHead(reply.status ?? 200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...reply.headers,
    });
    const events = reply.sse.split(/\n\n/).filter((e) => e.trim() !== "");
    const keep =
      reply.dropAfter === undefined ? events.length : Math.min(reply.dropAfter, events.length);
    for (const event of events.slice(0, keep)) res.write(`${event}\n\n`);
    if (reply.dropAfter !== undefined) {
      // Let the written events reach the client, then cut the connection mid-stream.
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    res.end();
    return;
  }
  send(res, reply);
}

function send(
  res: ServerResponse,
  reply: { status?: number; headers?: Record<string, string>; body: unknown },
): void {
  const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
  const type = typeof reply.body === "string" ? "text/plain" : "application/json";
  res.writeHead(reply.status ?? 200, { "content-type": type, ...reply.headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function parseMaybe(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
