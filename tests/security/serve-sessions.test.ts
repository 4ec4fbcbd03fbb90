import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";

// issue 20: sessions are bounded (a limit, idle expiry), a send is cancelled with its client,
// and a session's loom is read back from the loom file when asked, not kept.
const done = (answer: string) => ({ tool_calls: [{ gate: "done", args: { answer } }] });
const slow = { tool_calls: [{ gate: "wait", args: {} }] };
const spellText = (responses: unknown[]) => `name: echoer
llm: { provider: scripted, responses: ${JSON.stringify(responses)} }
identity: { system_prompt: "Answer." }
circle:
  gates: [done, { name: wait, behavior: { delay_ms: 400, result: waited } }]
  wards: [{ max_turns: 4 }]
`;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serve(responses: unknown[], options: ServeOptions = {}, loomPath = "memory") {
  const loaded = await loadSpellText(spellText(responses), "echoer.yaml", { loomPath });
  const app = await createHttpServer(loaded, options);
  apps.push(app);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  const open = async () => {
    const res = await fetch(`${url}/sessions`, { method: "POST" });
    return { status: res.status, body: (await res.json()) as { id: string; error?: unknown } };
  };
  const send = (id: string, intent: string, signal?: AbortSignal) =>
    fetch(`${url}/sessions/${id}/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ intent }),
      ...(signal ? { signal } : {}),
    });
  const health = async () =>
    (await (await fetch(`${url}/healthz`)).json()) as { running: number; sessions: number };
  /** Waits (bounded, generous) until `test` holds for /healthz. */
  const until = async (test: (h: { running: number; sessions: number }) => boolean) => {
    for (let i = 0; i < 300; i++) {
      if (test(await health())) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`healthz never matched: ${JSON.stringify(await health())}`);
  };
  return { url, open, send, health, until, loaded };
}

describe("spell serve sessions are bounded", () => {
  it("a send whose client disconnects is cancelled, as /cast is", async () => {
    const { open, send, until, loaded } = await serve([slow, done("late")]);
    const { id } = (await open()).body;
    const controller = new AbortController();
    const pending = send(id, "x", controller.signal).catch(() => "aborted");
    await until((h) => h.running === 1);
    controller.abort();
    expect(await pending).toBe("aborted");
    await until((h) => h.running === 0);
    const last = loaded.cantrip!.loom.turns().at(-1)!;
    expect(last).toMatchObject({ truncated: true, reason: "client_disconnected" });
  });

  it("past the session limit, POST /sessions is 503 with a message; closing one makes room", async () => {
    const { url, open } = await serve([], { maxSessions: 2 });
    const a = await open();
    const b = await open();
    expect([a.status, b.status]).toEqual([201, 201]);
    const c = await open();
    expect(c.status).toBe(503);
    expect(c.body).toMatchObject({
      error: { code: "too_many_sessions", message: expect.stringMatching(/2 sessions/) as unknown },
    });
    expect((await fetch(`${url}/sessions/${a.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${url}/sessions/${a.body.id}/loom`)).status).toBe(404);
    expect((await open()).status).toBe(201);
  });

  it("an idle session expires (a memory loom cannot bring it back: 404)", async () => {
    const { url, open, send, until } = await serve([done("a")], { sessionIdleMs: 300 });
    const { id } = (await open()).body;
    expect((await send(id, "first")).status).toBe(200);
    await until((h) => h.sessions === 0);
    expect((await fetch(`${url}/sessions/${id}/loom`)).status).toBe(404);
    expect((await send(id, "again")).status).toBe(404);
  });

  it("with a loom file, an expired session comes back when used, and its loom is read from the file", async () => {
    const loom = join(mkdtempSync(join(tmpdir(), "serve-expiry-")), "loom.jsonl");
    const first = await serve([done("a")], { sessionIdleMs: 300 }, loom);
    const { id } = (await first.open()).body;
    expect((await first.send(id, "first")).status).toBe(200);
    const turns = async (url: string) =>
      (await (await fetch(`${url}/sessions/${id}/loom`)).text())
        .trim()
        .split("\n")
        .filter((l) => l.includes('"type":"turn"')).length;
    expect(await turns(first.url)).toBe(1);
    await first.until((h) => h.sessions === 0); // expired: its entity is let go
    // Another server on the same loom continues the session meanwhile.
    const second = await serve([done("b")], {}, loom);
    const res = await second.send(id, "second");
    expect(await res.json()).toMatchObject({ status: "terminated", result: "b" });
    await second.until((h) => h.running === 0);
    expect(await turns(first.url)).toBe(2); // read from the file now, not an old copy
  });
});
