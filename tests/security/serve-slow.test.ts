import { connect, type Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

// issue 20: slow clients must not hold sockets. Real sockets on loopback, 20 at a time, each
// a client this test opened; small timeouts here (the defaults are seconds), generous waits.
const CONNECTIONS = 20;
const done = { tool_calls: [{ gate: "done", args: { answer: "ok" } }] };
const wait = { tool_calls: [{ gate: "wait", args: {} }] };
const SPELL = `name: echoer
llm: { provider: scripted, responses: ${JSON.stringify([wait, done])} }
identity: { system_prompt: "Answer." }
circle:
  gates: [done, { name: wait, behavior: { delay_ms: 1500, result: waited } }]
  wards: [{ max_turns: 3 }]
`;
const SMALL = { headersMs: 400, requestMs: 800, keepAliveMs: 400, idleMs: 2000 };

let app: FastifyInstance | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app?.close();
  app = undefined;
});

async function serve(options: ServeOptions) {
  const loaded = await loadSpellText(SPELL, "echoer.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, options);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, port: (app.server.address() as { port: number }).port };
}

/**
 * A client socket that sends `head` and then one byte of `drip` every 100 ms; resolves with
 * what the server answered when the server closes it.
 */
function client(port: number, head: string, drip = ""): { closed: Promise<string> } {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  let answer = "";
  let timer: ReturnType<typeof setInterval> | undefined;
  socket.on("connect", () => {
    if (head) socket.write(head);
    if (drip)
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write(drip);
      }, 100);
  });
  socket.on("data", (d: Buffer) => (answer += d.toString()));
  const closed = new Promise<string>((resolve) => {
    const end = () => {
      clearInterval(timer);
      resolve(answer);
    };
    socket.on("close", end);
    socket.on("end", () => socket.destroy());
    socket.on("error", () => {});
  });
  return { closed };
}

/** Resolves with every client's answer once all are closed, or fails after `ms`. */
function allClosed(clients: { closed: Promise<string> }[], ms = 30_000): Promise<string[]> {
  return Promise.race([
    Promise.all(clients.map((c) => c.closed)),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`sockets still open after ${ms} ms`)), ms).unref(),
    ),
  ]);
}

const many = <T>(make: (i: number) => T) => Array.from({ length: CONNECTIONS }, (_, i) => make(i));

describe("spell serve bounds a client's time", () => {
  it("headers never finished (or never begun) are cut at the headers timeout; /healthz answers meanwhile", async () => {
    const { url, port } = await serve({ timeouts: SMALL });
    const clients = many((i) =>
      i % 2 ? client(port, "") : client(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", "x"),
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const answers = await allClosed(clients);
    expect(answers).toHaveLength(CONNECTIONS);
  }, 120_000);

  it("a body trickled byte by byte is cut at the request timeout", async () => {
    const { url, port } = await serve({ timeouts: SMALL });
    const head =
      "POST /cast HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Content-Length: 100000\r\n\r\n" +
      '{"intent":"';
    const clients = many(() => client(port, head, "a"));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const answers = await allClosed(clients);
    for (const a of answers) expect(a).not.toMatch(/^HTTP\/1\.1 200/);
  }, 120_000);

  it("an idle keep-alive connection is closed after the keep-alive timeout", async () => {
    const { port } = await serve({ timeouts: SMALL });
    const clients = many(() =>
      client(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"),
    );
    const answers = await allClosed(clients);
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 200/);
  }, 120_000);

  it("a cast quiet for longer than the socket's silence bound still answers", async () => {
    const { url } = await serve({ timeouts: { ...SMALL, idleMs: 300 } });
    const res = await fetch(`${url}/cast`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ intent: "wait, then answer" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "terminated", result: "ok" });
  }, 120_000);

  it("a refused request (401) closes its socket at once, whatever is left of its body", async () => {
    // Long timeouts: only the refusal's Connection: close can end these sockets in time.
    const long = { headersMs: 300_000, requestMs: 300_000, keepAliveMs: 300_000, idleMs: 300_000 };
    const { port } = await serve({ token: "tok-slow-123456", timeouts: long });
    const head =
      "POST /cast HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Content-Length: 100000\r\n\r\n";
    const clients = many(() => client(port, head, "a"));
    const answers = await allClosed(clients);
    for (const a of answers) {
      expect(a).toMatch(/^HTTP\/1\.1 401/);
      expect(a.toLowerCase()).toContain("connection: close");
    }
  }, 120_000);
});
