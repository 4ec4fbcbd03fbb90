import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { mcpCommand } from "../../src/cli/mcp.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { a2aClient, isTask, sendParams } from "../support/a2a.js";
import { io } from "../support/io.js";
import { lineSession } from "../support/line-rpc.js";

// Issue 38: a cast a ward cuts off has no answer. A served spell says so: an MCP client gets an
// error result (never a success carrying `null` or an empty structured value), and an A2A task
// ends failed (never completed), whichever transport asked.
const echo = { tool_calls: [{ gate: "echo", args: { text: "still working" } }] };
const CUT = `name: endless
description: Never calls done; max_turns cuts it off.
llm: { provider: scripted, responses: ${JSON.stringify([echo, echo, echo, echo])} }
identity: { system_prompt: "Work." }
output_schema: { type: object, properties: { answer: { type: string } } }
circle: { gates: [done, echo], wards: [{ max_turns: 1 }] }
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve() {
  const loaded = await loadSpellText(CUT, "endless.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, loaded };
}

/** The one turn ran, and the loom says the ward cut the cast. */
function cutByWard(loaded: Awaited<ReturnType<typeof serve>>["loaded"]): void {
  const turns = loaded.cantrip!.loom.turns();
  expect(turns).toHaveLength(1);
  expect(turns[0]!.truncated).toBe(true);
}

describe("a cast cut off by a ward is no success on a served surface (issue 38)", () => {
  it("MCP over /mcp: an error result naming the ward, no structured content", async () => {
    const { url, loaded } = await serve();
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    try {
      const r = await client.callTool({ name: "endless", arguments: { intent: "go" } });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      expect(JSON.stringify(r.content)).toMatch(/truncated \(max_turns\)/);
      cutByWard(loaded);
    } finally {
      await client.close();
    }
  });

  it("MCP over stdio (spell mcp): an error result naming the ward", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ward-cut-"));
    const file = join(dir, "endless.yaml");
    writeFileSync(file, CUT);
    const session = lineSession((streams) => mcpCommand([file], { loom: "memory" }, io(), streams));
    await session.request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    });
    session.notify("notifications/initialized");
    const call = (await session.request(2, "tools/call", {
      name: "endless",
      arguments: { intent: "go" },
    })) as { result: { isError?: boolean; structuredContent?: unknown; content: unknown } };
    expect(await session.close()).toBe(0);
    expect(call.result.isError).toBe(true);
    expect(call.result.structuredContent).toBeUndefined();
    expect(JSON.stringify(call.result.content)).toMatch(/truncated \(max_turns\)/);
  });

  it("A2A (1.0 and 0.3): the task ends failed, saying the ward cut it, with no artifact", async () => {
    const { url, loaded } = await serve();
    const client = await a2aClient(url);
    const sent = await client.sendMessage(sendParams("go"));
    expect(isTask(sent)).toBe(true);
    if (!isTask(sent)) return;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(sent.status?.message)).toMatch(/truncated \(max_turns\)/);
    expect(sent.artifacts).toEqual([]);
    cutByWard(loaded);
    const old = (await (
      await fetch(`${url}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: {
            message: {
              kind: "message",
              messageId: "m",
              role: "user",
              parts: [{ kind: "text", text: "go" }],
            },
          },
        }),
      })
    ).json()) as { result?: { status?: { state?: string } } };
    expect(old.result?.status?.state).toBe("failed");
  });
});
