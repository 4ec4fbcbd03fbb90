import { TaskState } from "@a2a-js/sdk";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { a2aClient, artifactText, isTask, sendParams } from "../support/a2a.js";
import { browserRequest } from "../support/loopback-http.js";
import { doneReplyLeaking, withProvider, type LoopbackReply } from "../support/providers.js";

// A2A is served behind the same guard as the rest of spell serve, and redacts as it does.
const SECRET = "vault-pass-8c1f2e9d47";
const doneWith = (answer: string): LoopbackReply => doneReplyLeaking(answer, SECRET);
const done = { tool_calls: [{ gate: "done", args: { answer: "ok" } }] };
const SCRIPTED = `name: echoer
llm: { provider: scripted, responses: ${JSON.stringify([done, done, done])} }
identity: { system_prompt: "Answer." }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const rpcBody = JSON.stringify({
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
});

async function serveScripted(options: ServeOptions = {}) {
  const loaded = await loadSpellText(SCRIPTED, "echoer.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, options);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as { port: number }).port;
  return { url, port, loom: loaded.cantrip!.loom };
}

describe("A2A behind spell serve's guard", () => {
  it("without a token: a rebound Host and a foreign Origin are refused (card and JSON-RPC); the cast never runs", async () => {
    const { port, loom } = await serveScripted();
    const json = { "content-type": "application/json" };
    for (const host of [`rebind.example:${port}`, "127.0.0.1.nip.io"]) {
      const card = await browserRequest(port, "GET", "/.well-known/agent-card.json", { host });
      expect(card.status).toBe(403);
      expect(JSON.parse(card.body)).toMatchObject({ error: { code: "forbidden_host" } });
      const rpc = await browserRequest(port, "POST", "/a2a", { host, ...json }, rpcBody);
      expect(rpc.status).toBe(403);
    }
    const host = `127.0.0.1:${port}`;
    const foreign = await browserRequest(
      port,
      "POST",
      "/a2a",
      { host, origin: "http://evil.example", ...json },
      rpcBody,
    );
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error: { code: "forbidden_origin" } });
    expect(loom.size).toBe(0);
    // The same request from a loopback name, no Origin, is served.
    const ok = await browserRequest(port, "POST", "/a2a", { host, ...json }, rpcBody);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ result: { status: { state: "completed" } } });
  });

  it("with a token: no token (or a wrong one) is 401 for the card and the JSON-RPC; the SDK client with it is served", async () => {
    const { url, port, loom } = await serveScripted({ token: "t0ken-a2a" });
    const host = `127.0.0.1:${port}`;
    const auths: Record<string, string>[] = [{}, { authorization: "Bearer nope" }];
    for (const auth of auths) {
      expect(
        (await browserRequest(port, "GET", "/.well-known/agent-card.json", { host, ...auth }))
          .status,
      ).toBe(401);
      const rpc = await browserRequest(
        port,
        "POST",
        "/a2a",
        { host, "content-type": "application/json", ...auth },
        rpcBody,
      );
      expect(rpc.status).toBe(401);
    }
    expect(loom.size).toBe(0);
    await expect(a2aClient(url)).rejects.toThrow();
    const client = await a2aClient(url, "t0ken-a2a");
    const result = await client.sendMessage(sendParams("go"));
    expect(isTask(result) && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe("A2A never sends a secret (PROD-8)", () => {
  it("not in the card, message/send, tasks/get or any event of message/stream (1.0 and 0.3)", async () => {
    const replies = [
      doneWith(`opened with ${SECRET}`),
      doneWith(`streamed ${SECRET}`),
      doneWith(`old ${SECRET}`),
    ];
    await withProvider(replies, async (provider) => {
      const loaded = await loadSpellText(
        `name: vault
description: 'Opens the vault with \${env:MY_SECRET}.'
llm: { provider: openai, model: gpt-4.1, base_url: '\${env:BASE}', api_key: sk-test-not-a-key }
identity: { system_prompt: 'The vault password is \${env:MY_SECRET}.' }
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`,
        "vault.yaml",
        { env: { MY_SECRET: SECRET, BASE: `${provider.url}/v1` }, loomPath: "memory" },
      );
      app = await createHttpServer(loaded);
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      const seen: string[] = [];
      // Everything the server sends, as the client received it.
      const fetchImpl: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        seen.push(await res.clone().text());
        return res;
      };
      for (const v of ["1.0", "0.3"])
        seen.push(
          await (
            await fetch(`${url}/.well-known/agent-card.json`, { headers: { "a2a-version": v } })
          ).text(),
        );
      const client = await a2aClient(url, undefined, fetchImpl);
      const sent = await client.sendMessage(sendParams("open the vault"));
      expect(isTask(sent)).toBe(true);
      if (!isTask(sent)) return;
      expect(artifactText(sent)).toBe("opened with [REDACTED]");
      await client.getTask({ tenant: "", id: sent.id });
      const events = [];
      for await (const e of client.sendMessageStream(sendParams("stream it"))) events.push(e);
      expect(events.length).toBeGreaterThan(3);
      seen.push(
        await (
          await fetch(`${url}/a2a`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: rpcBody,
          })
        ).text(),
      );
      // The secret really went out to the provider, in the system prompt.
      expect(JSON.stringify(provider.requests[0]!.body)).toContain(SECRET);
      expect(provider.requests).toHaveLength(3);
      const all = seen.join("\n");
      expect(all).toContain("[REDACTED]");
      expect(all).toContain("the answer holds [REDACTED]"); // a turn's status update
      expect(all).not.toContain(SECRET);
      expect(all.replace(/\s/g, "")).not.toContain(SECRET);
    });
  });
});
