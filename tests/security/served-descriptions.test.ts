import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { acpCommand } from "../../src/cli/acp.js";
import { mcpCommand } from "../../src/cli/mcp.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpell } from "../../src/spell/index.js";
import { io } from "../support/io.js";
import { lineSession } from "../support/line-rpc.js";

// Issue 38: every description that leaves the process — MCP's tools/list (`spell mcp` and
// `/mcp`), the A2A card, the OpenAPI document, ACP — goes through the one redaction, whatever
// field of the spell the `${env:…}` secret was written in. The spell's answer (text and
// structured) leaves redacted too. Each sink is read as the client reads it: its raw bytes.
const SECRET = "vault-pass-8c1f2e9d47";
const ENV = { VAULT_KEY: SECRET };
const S = "${env:VAULT_KEY}";
// The model's answer: the secret in its text, a value and a key (YAML keys are not interpolated:
// the model writes the secret itself there).
const done = {
  content: `leaked ${S}`,
  tool_calls: [{ gate: "done", args: { answer: { opened: `door ${S}`, [`by ${SECRET}`]: S } } }],
};

// The secret in every field a spell can write that a description may be built from.
const SPELL = `name: 'vault-${S}'
description: 'Opens the vault with ${S}.'
llm: { provider: scripted, responses: ${JSON.stringify([done, done, done, done])} }
identity: { system_prompt: 'The vault password is ${S}.' }
intent: 'Open {{door}} with ${S}.'
inputs:
  type: object
  title: 'Doors of ${S}'
  description: 'Which door (not ${S})'
  properties:
    door:
      type: string
      title: 'Door ${S}'
      description: 'The door, never ${S}'
      default: '${S}'
      enum: [front, '${S}']
      examples: ['${S}']
  $comment: '${S}'
output_schema:
  type: object
  title: 'Opened ${S}'
  description: 'What opened, never ${S}'
  properties:
    opened: { type: string, description: 'The door opened with ${S}', examples: ['${S}'] }
  required: [opened]
circle:
  gates: [done, { name: peek, description: 'Peeks at ${S}', behavior: { result: '${S}' } }]
  wards: [{ max_turns: 3 }]
`;

function spellFile(text = SPELL): string {
  const dir = mkdtempSync(join(tmpdir(), "served-descriptions-"));
  const file = join(dir, "vault.yaml");
  writeFileSync(file, text);
  return file;
}

/** No spelling of the secret a client could decode; the redaction visibly happened. */
function clean(text: string, where: string): void {
  expect(text, `${where} was redacted`).toContain("[REDACTED]");
  for (const form of [SECRET, JSON.stringify(SECRET).slice(1, -1), encodeURIComponent(SECRET)])
    expect(text.includes(form), `${where} holds the secret`).toBe(false);
  // A secret broken by whitespace or by a JSON escape of its dashes is still the secret.
  expect(text.replace(/\s|\\u002[dD]/g, "-").includes(SECRET), `${where} (decoded)`).toBe(false);
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve() {
  const loaded = await loadSpell(spellFile(), { env: ENV, loomPath: "memory" });
  // The secret really is in the loaded spell (the redaction is what keeps it in).
  expect(JSON.stringify(loaded.spell)).toContain(SECRET);
  app = await createHttpServer(loaded);
  return app.listen({ port: 0, host: "127.0.0.1" });
}

describe("a spell's descriptions leave every served surface redacted (issue 38)", () => {
  it("MCP over /mcp of spell serve: initialize, tools/list, a call's text and structured content", async () => {
    const url = await serve();
    const seen: string[] = [];
    const through: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      seen.push(await res.clone().text());
      return res;
    };
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: through }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(1);
      const tool = tools[0]!;
      expect(tool.name).toMatch(/^[A-Za-z0-9_.-]+$/);
      expect(tool.description).toBe("Opens the vault with [REDACTED].");
      const call = await client.callTool({ name: tool.name, arguments: { door: "front" } });
      expect(call.isError).toBeFalsy();
      expect(call.structuredContent).toEqual({
        opened: "door [REDACTED]",
        "by [REDACTED]": "[REDACTED]",
      });
      expect(JSON.stringify(call.content)).toContain("door [REDACTED]");
      clean(
        JSON.stringify({ info: client.getServerVersion(), tools, call }),
        "what the client read",
      );
      clean(seen.join("\n"), "the HTTP answers of /mcp");
    } finally {
      await client.close();
    }
  });

  it("MCP over stdio (spell mcp): initialize, tools/list, a call's text and structured content, stderr", async () => {
    const o = io(ENV);
    const session = lineSession((streams) =>
      mcpCommand([spellFile()], { loom: "memory" }, o, streams),
    );
    const init = await session.request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    });
    expect(init["result"]).toBeDefined();
    session.notify("notifications/initialized");
    const list = (await session.request(2, "tools/list")) as {
      result: { tools: { name: string; description: string }[] };
    };
    const [tool] = list.result.tools;
    expect(tool!.description).toBe("Opens the vault with [REDACTED].");
    const call = (await session.request(3, "tools/call", {
      name: tool!.name,
      arguments: { door: "front" },
    })) as { result: { isError?: boolean; structuredContent?: unknown } };
    expect(call.result.isError).toBeFalsy();
    expect(call.result.structuredContent).toEqual({
      opened: "door [REDACTED]",
      "by [REDACTED]": "[REDACTED]",
    });
    expect(await session.close()).toBe(0);
    clean(session.text(), "spell mcp's stdout");
    expect(o.err).not.toContain(SECRET);
  });

  it("A2A: the agent card (1.0 and 0.3), every field", async () => {
    const url = await serve();
    for (const version of ["1.0", "0.3"]) {
      const res = await fetch(`${url}/.well-known/agent-card.json`, {
        headers: { "a2a-version": version },
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ description: "Opens the vault with [REDACTED]." });
      clean(text, `the ${version} card`);
    }
  });

  it("the OpenAPI document of spell serve", async () => {
    const url = await serve();
    const res = await fetch(`${url}/openapi.json`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ openapi: "3.1.0" });
    clean(text, "/openapi.json");
  });

  it("ACP (spell acp): initialize, a session and a prompt's updates, stderr", async () => {
    const o = io(ENV);
    const session = lineSession((streams) =>
      acpCommand(spellFile(), { loom: "memory" }, o, streams),
    );
    const init = await session.request(1, "initialize", { protocolVersion: 1 });
    expect(init["result"]).toBeDefined();
    const made = (await session.request(2, "session/new", { cwd: tmpdir(), mcpServers: [] })) as {
      result: { sessionId: string };
    };
    const prompt = (await session.request(3, "session/prompt", {
      sessionId: made.result.sessionId,
      prompt: [{ type: "text", text: "open the front door" }],
    })) as { result?: { stopReason: string } };
    expect(prompt.result?.stopReason).toBe("end_turn");
    expect(await session.close()).toBe(0);
    clean(session.text(), "spell acp's stdout");
    expect(o.err).not.toContain(SECRET);
  });
});
