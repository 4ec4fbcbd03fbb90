import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, expect, vi } from "vitest";
import type { Message } from "../../src/core/contract.js";
import { DirectJSON } from "../../src/llm/providers/direct-json.js";
import { ASK_FILES } from "./providers.js";

// A loopback server that records requests as the socket carried them, and the harness that runs
// a query through an adapter's direct path and then its SDK's path against it (tests/llm/*-direct).

export type Reply =
  | {
      status?: number;
      headers?: Record<string, string>;
      body?: string | object;
      gzip?: boolean;
      delayMs?: number;
      redirectTo?: string;
    }
  | { drop: true };

export interface Seen {
  method: string;
  url: string;
  /** As the socket carried them: names as sent, in order. */
  rawHeaders: string[];
  /** The body's bytes as text. */
  body: string;
}

export interface Server {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server answering each request with the next reply (the last one again when they run out). */
export async function serve(replies: Reply[]): Promise<Server> {
  const seen: Seen[] = [];
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const reply = replies[Math.min(next++, replies.length - 1)]!;
      if ("drop" in reply) {
        req.socket.destroy();
        return;
      }
      const answer = (): void => {
        if (reply.redirectTo !== undefined) {
          res.writeHead(reply.status ?? 307, { location: reply.redirectTo });
          res.end();
          return;
        }
        const text =
          typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? null);
        const bytes = reply.gzip ? gzipSync(text) : Buffer.from(text);
        res.writeHead(reply.status ?? 200, {
          "content-type": typeof reply.body === "string" ? "text/plain" : "application/json",
          "x-request-id": "req_test",
          ...(reply.gzip ? { "content-encoding": "gzip" } : {}),
          ...reply.headers,
        });
        res.end(bytes);
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const s: Server = {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

export interface Outcome {
  result?: unknown;
  error?: unknown;
}

export async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    return { result: await p };
  } catch (error) {
    return { error };
  }
}

/** An error as the caller sees it, and the SDK error under it, without what a clock changes. */
export function shape(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const e = err as Error & Record<string, unknown>;
  const headers = e["headers"] as { entries?: () => Iterable<[string, string]> } | undefined;
  const cause = e["cause"];
  return {
    class: e.constructor.name,
    message: e.message,
    code: e["code"],
    status: e["status"],
    retryAfterMs: e["retryAfterMs"],
    providerCode: e["providerCode"],
    error: e["error"],
    headers: headers?.entries
      ? [...headers.entries()].filter(([name]) => name !== "date")
      : headers,
    cause: cause === undefined ? undefined : shape(cause),
    errnoCode: (cause as { code?: unknown } | undefined)?.code,
  };
}

/**
 * Runs the query through the direct path, then through the SDK's, against the same server
 * (answering each with the same replies), and gives both outcomes and what the server saw.
 */
export async function bothWays(
  replies: Reply[],
  run: (baseUrl: string, via: "direct" | "sdk") => Promise<unknown>,
  path = "/v1",
): Promise<{
  direct: Outcome;
  sdk: Outcome;
  seen: { direct: Seen[]; sdk: Seen[] };
  server: Server;
}> {
  const server = await serve([...replies, ...replies]);
  const post = vi.spyOn(DirectJSON.prototype, "post");
  const direct = await outcome(run(`${server.url}${path}`, "direct"));
  const directSeen = server.seen.length;
  expect(post).toHaveBeenCalled(); // it did go the direct way
  post.mockClear();
  const sdk = await outcome(run(`${server.url}${path}`, "sdk"));
  expect(post).not.toHaveBeenCalled();
  return {
    direct,
    sdk,
    seen: { direct: server.seen.slice(0, directSeen), sdk: server.seen.slice(directSeen) },
    server,
  };
}

/**
 * The ask, then a tool round trip: two echo calls (ids `${prefix}A`, `${prefix}B`), one answered,
 * one failed — a request with every message kind an adapter converts.
 */
export function toolRoundTrip(prefix: string): Message[] {
  return [
    ...ASK_FILES,
    {
      role: "assistant",
      content: null,
      toolCalls: [
        { id: `${prefix}A`, name: "echo", arguments: '{"text":"one"}' },
        { id: `${prefix}B`, name: "echo", arguments: '{"text":"two"}' },
      ],
    },
    { role: "tool", toolCallId: `${prefix}A`, content: "one" },
    { role: "tool", toolCallId: `${prefix}B`, content: "no such thing", isError: true },
  ];
}
