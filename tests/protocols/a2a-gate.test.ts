import { createServer, type Server } from "node:http";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

// Issue 26: the `a2a` gate, call_entity's counterpart for a remote agent, under fetch's allow rules.
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const ask = (intent: string) => ({ tool_calls: [{ gate: "reviewer", args: { intent } }] });

const apps: FastifyInstance[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A second `spell serve` on loopback: the remote agent. */
async function remote(responses: unknown[]) {
  const loaded = await loadSpellText(
    `name: reviewer
description: Reviews what it is sent.
llm: { provider: scripted, responses: ${JSON.stringify(responses)} }
identity: { system_prompt: "Review." }
circle:
  gates: [done, { name: wait, behavior: { delay_ms: 600000, result: waited } }]
  wards: [{ max_turns: 3 }]
`,
    "reviewer.yaml",
    { loomPath: "memory" },
  );
  const app = await createHttpServer(loaded);
  apps.push(app);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, loaded };
}

async function caller(responses: unknown[], url: string, allow: string[]) {
  const loaded = await loadSpellText(
    `name: author
llm: { provider: scripted, responses: ${JSON.stringify(responses)} }
identity: { system_prompt: "Write, then ask for a review." }
circle:
  gates:
    - done
    - a2a: { name: reviewer, url: "${url}", allow: ${JSON.stringify(allow)} }
  wards: [{ max_turns: 4 }]
`,
    "author.yaml",
    { loomPath: "memory" },
  );
  return loaded.cantrip!;
}

const observations = (result: { loom: { turns(): unknown[] } }) =>
  JSON.stringify(result.loom.turns());

describe("the a2a gate", () => {
  it("calls a second spell serve on loopback (the SDK's client) and gets its answer", async () => {
    const { url, loaded: other } = await remote([done("LGTM, ship it")]);
    const cantrip = await caller([ask("review my change"), done("reviewed")], url, [url]);
    const result = await cantrip.cast("write and get a review");
    expect(result.status).toBe("terminated");
    expect(observations(result)).toContain("LGTM, ship it");
    // The remote cast really ran, with the entity's intent.
    const remoteTurns = JSON.stringify(other.cantrip!.loom.turns());
    expect(remoteTurns).toContain("review my change");
  });

  it("a URL outside the allow list is refused at load, naming the host; the remote sees no request", async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end("{}");
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await expect(caller([], url, [])).rejects.toThrow(/a2a: host 127\.0\.0\.1 is not allowed/);
    await expect(caller([], url, ["http://127.0.0.1:1"])).rejects.toThrow(/not allowed/);
    await expect(caller([], url, ["127.0.0.1"])).rejects.toThrow(/not allowed/);
    expect(requests).toBe(0);
  });

  it("a card whose JSON-RPC URL is outside the allow list: the call is an error observation and that host sees nothing", async () => {
    let elsewhere = 0;
    const other = createServer((_req, res) => {
      elsewhere++;
      res.end("{}");
    });
    servers.push(other);
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
    const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    const { url: real } = await remote([done("never asked")]);
    // The allowed host's card points at the other host (its card, rewritten).
    const card = (await (
      await fetch(`${real}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })
    ).json()) as { supportedInterfaces: { url: string }[] };
    for (const i of card.supportedInterfaces) i.url = `${otherUrl}/a2a`;
    const front = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(card));
    });
    servers.push(front);
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    const frontUrl = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
    const cantrip = await caller([ask("leak this"), done("gave up")], frontUrl, [frontUrl]);
    const result = await cantrip.cast("try");
    expect(result.status).toBe("terminated");
    expect(observations(result)).toMatch(
      /a2a: host 127\.0\.0\.1 is not allowed|is allowed only as/,
    );
    expect(elsewhere).toBe(0);
  });

  it("cancelling the caller's cast cancels the remote task: the remote cast ends truncated (cancelled)", async () => {
    const { url, loaded: other } = await remote([{ tool_calls: [{ gate: "wait", args: {} }] }]);
    const cantrip = await caller([ask("take your time"), done("never")], url, [url]);
    const controller = new AbortController();
    const running = cantrip.cast("ask and wait", { signal: controller.signal });
    // The remote cast is running (its server counts it) before the caller is cancelled.
    const health = async () =>
      ((await (await fetch(`${url}/healthz`)).json()) as { running: number }).running;
    while ((await health()) === 0) await new Promise((r) => setTimeout(r, 20));
    controller.abort("interrupted");
    const result = await running;
    expect(result.status).toBe("truncated");
    while ((await health()) !== 0) await new Promise((r) => setTimeout(r, 20));
    const turns = other.cantrip!.loom.turns();
    expect(turns).toHaveLength(1);
    expect(JSON.stringify(turns[0])).toContain("cancelled");
  });
});
