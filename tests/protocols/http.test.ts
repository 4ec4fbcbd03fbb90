import { spawn } from "node:child_process";
import http from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { readState } from "../../src/loom/entities/index.js";

const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const spellText = (responses: unknown[], extra = "") => `name: echoer
llm: { provider: scripted, responses: ${JSON.stringify(responses)} }
identity: { system_prompt: "Answer." }
circle:
  gates: [done, { name: wait, behavior: { delay_ms: 400, result: waited } }${extra}]
  wards: [{ max_turns: 4 }]
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A gate that holds a cast for `ms`: a cast in it is surely running when the test looks. */
const hold = (ms: number) => `, { name: hold, behavior: { delay_ms: ${ms}, result: held } }`;

/** Waits until /healthz counts `n` casts running (polled, bounded: the server gives no other sign). */
async function runningIs(url: string, n: number): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const health = (await (await fetch(`${url}/healthz`)).json()) as { running: number };
    if (health.running === n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`/healthz never counted ${n} running`);
}

async function serve(responses: unknown[], options = {}, extra = "") {
  const loaded = await loadSpellText(spellText(responses, extra), "echoer.yaml", {
    loomPath: "memory",
  });
  app = await createHttpServer(loaded, options);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(url + path, {
      method: "POST",
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  return { url, post, loaded };
}

describe("spell serve (HTTP, on loopback)", () => {
  it("POST /cast runs the spell and returns the result as spell run --json does", async () => {
    const { post } = await serve([done("42")]);
    const res = await post("/cast", { intent: "answer" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: "terminated",
      result: "42",
      turns: 1,
      reason: "done",
    });
  });

  it("sessions: a second send sees the first (ENTITY-5); two sessions never see each other", async () => {
    const { url, post } = await serve([done("a"), done("b"), done("c")]);
    const one = ((await (await post("/sessions")).json()) as { id: string }).id;
    const two = ((await (await post("/sessions")).json()) as { id: string }).id;
    await post(`/sessions/${one}/send`, { intent: "first" });
    await post(`/sessions/${one}/send`, { intent: "second" });
    await post(`/sessions/${two}/send`, { intent: "other" });
    const loom = await (await fetch(`${url}/sessions/${one}/loom`)).text();
    const turns = loom
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; sequence?: number });
    expect(turns.filter((t) => t.type === "turn").map((t) => t.sequence)).toEqual([1, 2]);
    expect((await fetch(`${url}/sessions/nope/loom`)).status).toBe(404);
    expect((await post("/sessions/nope/send", { intent: "x" })).status).toBe(404);
  });

  it("a scripted spell: a session's sends move only its own place, never another session's or POST /cast's", async () => {
    // Before, sessions and casts shared the model's place: after one session's send, POST /cast
    // (and a second session) started past it, and ran out of replies.
    const { post } = await serve([done("first"), done("second")]);
    const result = async (res: Response) => ((await res.json()) as { result: unknown }).result;
    const one = ((await (await post("/sessions")).json()) as { id: string }).id;
    expect(await result(await post(`/sessions/${one}/send`, { intent: "a" }))).toBe("first");
    expect(await result(await post(`/sessions/${one}/send`, { intent: "b" }))).toBe("second");
    expect(await result(await post("/cast", { intent: "c" }))).toBe("first");
    const two = ((await (await post("/sessions")).json()) as { id: string }).id;
    expect(await result(await post(`/sessions/${two}/send`, { intent: "d" }))).toBe("first");
    expect(await result(await post("/cast", { intent: "e" }))).toBe("first");
  });

  it("a session id cannot be guessed from another: 128 random bits, nothing shared with ids of the process", async () => {
    // The id is the capability to read a session's loom and speak to its entity.
    const { url, post } = await serve([done("a")]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await (await post("/sessions")).json()) as { id: string }).id);
    for (const id of ids) expect(id).toMatch(/^sess_[A-Za-z0-9_-]{22}$/);
    // No common prefix beyond the kind: a process prefix and counter would share ~12 characters.
    const common = (a: string, b: string) => {
      let n = 0;
      while (n < a.length && a[n] === b[n]) n++;
      return n;
    };
    const shared = Math.max(...ids.slice(1).map((id) => common(id, ids[0]!)));
    expect(shared).toBeLessThan("sess_".length + 4);
    // A neighbour of a known id is no session.
    const known = ids[0]!;
    const neighbour = known.slice(0, -1) + (known.endsWith("A") ? "B" : "A");
    expect((await fetch(`${url}/sessions/${neighbour}/loom`)).status).toBe(404);
  });

  it("with a loom file, a session is recorded beside it and a restarted server continues it", async () => {
    const loomPath = join(mkdtempSync(join(tmpdir(), "serve-sessions-")), "loom.jsonl");
    const start = async (responses: unknown[]) => {
      const loaded = await loadSpellText(spellText(responses), "echoer.yaml", { loomPath });
      app = await createHttpServer(loaded);
      return app.listen({ port: 0, host: "127.0.0.1" });
    };
    const send = (url: string, id: string, intent: string) =>
      fetch(`${url}/sessions/${id}/send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ intent }),
      });
    let url = await start([done("a")]);
    const id = (
      (await (await fetch(`${url}/sessions`, { method: "POST" })).json()) as { id: string }
    ).id;
    expect((await send(url, id, "first")).status).toBe(200);
    const state = readState(loomPath);
    expect(state.sessions[id]).toMatchObject({ protocol: "http" });
    await app!.close();

    url = await start([done("b")]);
    const res = await send(url, id, "second");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "terminated", result: "b" });
    const loom = (await (await fetch(`${url}/sessions/${id}/loom`)).text()).trim().split("\n");
    const turns = loom.map((l) => JSON.parse(l) as { type: string; entity_id?: string });
    const own = turns.filter((t) => t.type === "turn");
    expect(own).toHaveLength(2); // the first server's turn and the second's, one entity
    expect(new Set(own.map((t) => t.entity_id))).toEqual(new Set([state.sessions[id]!.entity_id]));
    expect((await send(url, "sess_unknown", "x")).status).toBe(404);
  });

  it("with a token, a session recorded by an earlier server is reached only with the token", async () => {
    const loomPath = join(mkdtempSync(join(tmpdir(), "serve-token-")), "loom.jsonl");
    const token = "tok-restored-123456";
    const start = async (responses: unknown[]) => {
      const loaded = await loadSpellText(spellText(responses), "echoer.yaml", { loomPath });
      app = await createHttpServer(loaded, { token });
      return app.listen({ port: 0, host: "127.0.0.1" });
    };
    const auth = { authorization: `Bearer ${token}` };
    let url = await start([done("a")]);
    const opened = await fetch(`${url}/sessions`, { method: "POST", headers: auth });
    const id = ((await opened.json()) as { id: string }).id;
    await app!.close();
    url = await start([done("b")]);
    const send = (headers: Record<string, string>) =>
      fetch(`${url}/sessions/${id}/send`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ intent: "x" }),
      });
    const wrong: Record<string, string>[] = [{}, { authorization: "Bearer tok-restored-654321" }];
    for (const headers of wrong) {
      expect((await send(headers)).status).toBe(401);
      expect((await fetch(`${url}/sessions/${id}/loom`, { headers })).status).toBe(401);
    }
    expect(await (await send(auth)).json()).toMatchObject({ status: "terminated", result: "b" });
    expect((await fetch(`${url}/sessions/${id}/loom`, { headers: auth })).status).toBe(200);
  });

  it("bad input is a 4xx with a JSON error: malformed JSON, a missing intent, a body over the limit", async () => {
    const { post } = await serve([done("x")], { bodyLimit: 200 });
    const malformed = await post("/cast", "{not json");
    expect(malformed.status).toBe(400);
    const malformedBody = (await malformed.json()) as { error: { message: unknown } };
    expect(typeof malformedBody.error.message).toBe("string");
    expect((await post("/cast", {})).status).toBe(400);
    const big = await post("/cast", { intent: "x".repeat(500) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: "body_too_large" } });
  });

  it("a failing cast is a structured 502, never a hung request", async () => {
    const { post } = await serve([{ error: { status: 500, message: "provider down" } }]);
    const res = await post("/cast", { intent: "x" });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      status: "failed",
      error: { message: expect.stringContaining("provider down") as unknown },
    });
  });

  it("a bearer token guards every route", async () => {
    const { url, post } = await serve([done("ok")], { token: "tok-123456" });
    expect((await fetch(`${url}/healthz`)).status).toBe(401);
    expect(
      (await post("/cast", { intent: "x" }, { authorization: "Bearer wrong-12345" })).status,
    ).toBe(401);
    expect(
      (await post("/cast", { intent: "x" }, { authorization: "Bearer tok-123456" })).status,
    ).toBe(200);
  });

  it("beyond --max-concurrent casts get 429 with Retry-After", async () => {
    const slow = { tool_calls: [{ gate: "hold", args: {} }] };
    const { url, post } = await serve([slow, done("1")], { maxConcurrent: 1 }, hold(5000));
    const first = post("/cast", { intent: "slow" });
    await runningIs(url, 1); // the first holds its slot (an event: on a busy machine 100 ms was a guess)
    const second = await post("/cast", { intent: "again" });
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe("1");
    expect((await first).status).toBe(200);
  });

  it("streams a cast's events as Server-Sent Events when asked", async () => {
    const { post } = await serve([done("streamed")]);
    const res = await post("/cast", { intent: "x" }, { accept: "text/event-stream" });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    expect(text).toContain("event: step_complete");
    expect(text).toMatch(/event: result\ndata: .*"result":"streamed"/);
  });

  it("a client that disconnects cancels its cast", async () => {
    const slow = { tool_calls: [{ gate: "hold", args: {} }] };
    const { url, loaded } = await serve([slow, done("late")], {}, hold(20_000));
    const controller = new AbortController();
    const pending = fetch(`${url}/cast`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ intent: "x" }),
      signal: controller.signal,
    }).catch(() => "aborted");
    await runningIs(url, 1); // the cast is running (in its held gate call)
    controller.abort();
    expect(await pending).toBe("aborted");
    await runningIs(url, 0); // the cancel ended it long before the gate's 20 s
    // The cast was truncated by the disconnect; its turns are in the loom.
    const last = loaded.cantrip!.loom.turns().at(-1)!;
    expect(last).toMatchObject({ truncated: true, reason: "client_disconnected" });
  });

  it("one keep-alive connection: a cast answered stays so, the next one is cancelled when it closes", async () => {
    const slow = { tool_calls: [{ gate: "hold", args: {} }] };
    // Every cast holds 3 s in its gate: the first is answered, the second cancelled in it.
    const { url, loaded } = await serve([slow, done("late")], {}, hold(3_000));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { port } = new URL(url);
    const request = () => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        path: "/cast",
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      });
      const answer = new Promise<string>((resolve, reject) => {
        req.on("response", (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
      });
      req.end(JSON.stringify({ intent: "x" }));
      return { req, answer };
    };
    const first = request();
    expect(JSON.parse(await first.answer)).toMatchObject({ status: "terminated", result: "late" });
    const second = request();
    const gone = second.answer.catch(() => "gone");
    await runningIs(url, 1);
    expect(second.req.reusedSocket).toBe(true); // the same connection as the first cast's
    second.req.destroy(); // the client goes away: the connection closes
    expect(await gone).toBe("gone");
    await runningIs(url, 0);
    agent.destroy();
    const turns = loaded.cantrip!.loom.turns();
    const entities = [...new Set(turns.map((t) => t.entity_id))];
    expect(entities).toHaveLength(2);
    const last = (id: string) => turns.filter((t) => t.entity_id === id).at(-1);
    expect(last(entities[0]!)).toMatchObject({ terminated: true, reason: "done" });
    expect(last(entities[1]!)).toMatchObject({ truncated: true, reason: "client_disconnected" });
  });

  it("publishes an OpenAPI document", async () => {
    const { url } = await serve([done("x")]);
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      openapi: string;
      paths: object;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/cast",
        "/sessions",
        "/sessions/{id}/send",
        "/sessions/{id}/loom",
        "/healthz",
      ]),
    );
  });

  it("the OpenAPI document is every route the server has, from the routes themselves", async () => {
    const { url } = await serve([done("x")]);
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>>;
    };
    // Issue 45: /mcp, /a2a and the agent card were missing from the hand-kept document.
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((verb) => `${verb.toUpperCase()} ${path}`),
    );
    expect(listed).toEqual(
      expect.arrayContaining([
        "POST /mcp",
        "GET /mcp",
        "DELETE /mcp",
        "POST /a2a",
        "GET /.well-known/agent-card.json",
        "GET /openapi.json",
      ]),
    );
    // Each listed operation is a route the server really has (none made up).
    for (const line of listed) {
      const [method, path] = line.split(" ") as [string, string];
      const url = path.replace(/\{(\w+)\}/g, ":$1");
      expect(app!.hasRoute({ method: method, url }), line).toBe(true);
    }
    // The body schema fastify validates POST /cast with is the document's.
    expect(JSON.stringify(doc.paths["/cast"]!["post"]!.requestBody)).toContain('"anyOf"');
    expect(doc.paths["/sessions/{id}/loom"]!["get"]!.parameters).toHaveLength(1);
  });
});

describe("spell serve (the CLI)", () => {
  it("refuses a non-loopback host without a token, and drains on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "serve-"));
    writeFileSync(join(dir, "s.yaml"), spellText([done("x")]));
    const bin = join(process.cwd(), "bin/run.js");
    const refused = spawn(
      process.execPath,
      [bin, "serve", join(dir, "s.yaml"), "--host", "0.0.0.0"],
      {
        env: { ...process.env, SPELLBOOK_TOKEN: "" },
      },
    );
    let err = "";
    refused.stderr.on("data", (d: Buffer) => (err += d.toString()));
    expect(await new Promise((r) => refused.on("exit", r))).toBe(3);
    expect(err).toContain("without a token");
    const server = spawn(process.execPath, [
      bin,
      "serve",
      join(dir, "s.yaml"),
      "--port",
      "0",
      "--loom",
      "memory",
    ]);
    let out = "";
    server.stderr.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve) => {
      const check = () =>
        /listening on (http:\/\/\S+)/.test(out) ? resolve() : setTimeout(check, 20);
      check();
    });
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    server.kill("SIGTERM");
    expect(await new Promise((r) => server.on("exit", r))).toBe(0);
    expect(out).toContain("draining");
  }, 120_000);
});
