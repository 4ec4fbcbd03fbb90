// Issue 40 (night): the served exits encode a cast's answer themselves — MCP's text content
// (`spell mcp`, /mcp), ACP's closing agent_message_chunk — or let Fastify encode a route's
// object: each string is redacted before it is encoded, then the text (a secret quoted three
// times in the answer was sent quoted four times, a form the redactor does not know). Fake
// secrets only.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { acpCommand } from "../../src/cli/acp.js";
import { mcpCommand } from "../../src/cli/mcp.js";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpell } from "../../src/spell/index.js";
import { io } from "../support/io.js";
import { lineSession } from "../support/line-rpc.js";
import { SECRET, SHAPED, expectNoSecret, quoted } from "../support/exit-secrets.js";

const env = { SPELL_SECRET: SECRET };
const ANSWER = { deep: quoted(3), shaped: SHAPED };

function spellFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "redact-served-"));
  const file = join(dir, "leak.json");
  const done = { tool_calls: [{ gate: "done", args: { answer: ANSWER } }] };
  writeFileSync(
    file,
    JSON.stringify({
      name: "leak",
      llm: { provider: "scripted", responses: [done, done, done] },
      identity: { system_prompt: "key: ${env:SPELL_SECRET}" },
      circle: { gates: ["done"], wards: [{ max_turns: 2 }] },
      intent: "go",
    }),
  );
  return file;
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe("the served exits send no secret in any encoding (issue 40, night)", () => {
  it("spell mcp: a call's text content is the answer's JSON, redacted before encoding", async () => {
    const o = io(env);
    const session = lineSession((streams) =>
      mcpCommand([spellFile()], { loom: "memory" }, o, streams),
    );
    await session.request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    });
    session.notify("notifications/initialized");
    const list = (await session.request(2, "tools/list")) as {
      result: { tools: { name: string }[] };
    };
    const call = (await session.request(3, "tools/call", {
      name: list.result.tools[0]!.name,
      arguments: { intent: "go" },
    })) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(call.result.isError).toBeFalsy();
    expect(call.result.content[0]!.text).toContain("[REDACTED]");
    expect(await session.close()).toBe(0);
    expectNoSecret(session.text() + o.err, "spell mcp's stdout");
  });

  it("spell acp: the closing message of a `done` answer is its JSON, redacted before encoding", async () => {
    const o = io(env);
    const session = lineSession((streams) =>
      acpCommand(spellFile(), { loom: "memory" }, o, streams),
    );
    await session.request(1, "initialize", { protocolVersion: 1 });
    const made = (await session.request(2, "session/new", { cwd: tmpdir(), mcpServers: [] })) as {
      result: { sessionId: string };
    };
    const prompt = (await session.request(3, "session/prompt", {
      sessionId: made.result.sessionId,
      prompt: [{ type: "text", text: "go" }],
    })) as { result?: { stopReason: string } };
    expect(prompt.result?.stopReason).toBe("end_turn");
    expect(await session.close()).toBe(0);
    // The closing message: the answer as JSON text the mapper encodes. (The `done` gate's result
    // in the tool_call_update is the engine's own text of the answer, encoded before any exit:
    // there the answer's secret is quoted four times, past the three the redactor knows —
    // docs/design/LIMITS.md.)
    const chunks = session
      .text()
      .split("\n")
      .filter((l) => l.includes('"agent_message_chunk"') || l.includes('"id":3'));
    expect(chunks.join("\n")).toContain("[REDACTED]");
    expectNoSecret(chunks.join("\n") + o.err, "spell acp's answer");
  });

  it("spell serve: an object any route answers is redacted before Fastify encodes it", async () => {
    const loaded = await loadSpell(spellFile(), { env, loomPath: "memory" });
    app = await createHttpServer(loaded);
    // A route added to the served app (a plugin's, a future one): the wall is the app's.
    app.get("/probe", () => Promise.resolve({ answer: ANSWER, [quoted(3)]: 1 }));
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const text = await (await fetch(`${url}/probe`)).text();
    expect(text).toContain("[REDACTED]");
    expectNoSecret(text, "GET /probe");
  });
});
