/**
 * `/mcp` on `spell serve` (issue 26): the spell as an MCP tool over the streamable-HTTP
 * transport of the official SDK, behind the same guard as every route (guard.ts: the token,
 * the Host and Origin checks). Each MCP session (its `Mcp-Session-Id`) has its own SDK server
 * and transport, so a client's `notifications/cancelled` reaches the call it names and aborts
 * its cast; at most MAX_MCP_SESSIONS live at once (503 past it), a DELETE ends one, and all
 * end with the server.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { LoadedSpell } from "../../spell/index.js";
import { createMcpServer } from "../mcp/server.js";
import { fail } from "./cast-route.js";

const MAX_MCP_SESSIONS = 256;

export function mcpRoutes(app: FastifyInstance, loaded: LoadedSpell): void {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.addHook("onClose", async () => {
    await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
  });
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (id !== undefined)
        return fail(reply, 404, "unknown_mcp_session", "no such MCP session (it ended)");
      if (req.method !== "POST")
        return fail(reply, 400, "no_mcp_session", "begin an MCP session with a POST (initialize)");
      if (sessions.size >= MAX_MCP_SESSIONS)
        return fail(
          reply,
          503,
          "too_many_mcp_sessions",
          `${MAX_MCP_SESSIONS} MCP sessions are open`,
        );
      transport = await openSession(loaded, sessions);
    }
    // An MCP call may be quiet for minutes (a long cast): no socket silence bound while it runs.
    const socket = req.raw.socket as Partial<Pick<typeof req.raw.socket, "setTimeout">>;
    socket.setTimeout?.(0);
    reply.hijack();
    await transport.handleRequest(req.raw, reply.raw, req.body);
  };
  app.post("/mcp", handle);
  app.get("/mcp", handle);
  app.delete("/mcp", handle);
}

async function openSession(
  loaded: LoadedSpell,
  sessions: Map<string, StreamableHTTPServerTransport>,
): Promise<StreamableHTTPServerTransport> {
  const { StreamableHTTPServerTransport } =
    await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { randomUUID } = await import("node:crypto");
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  const server = await createMcpServer([loaded]);
  await server.connect(transport);
  return transport;
}
