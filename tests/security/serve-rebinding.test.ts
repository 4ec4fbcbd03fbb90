import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT, type CliIO } from "../../src/cli/io.js";
import { serveCommand } from "../../src/cli/serve.js";
import { createHttpServer, type ServeOptions } from "../../src/protocols/http/server.js";
import { loadSpellText } from "../../src/spell/index.js";
import { browserRequest } from "../support/loopback-http.js";

// DNS rebinding (issue 20): a web page whose name rebinds to 127.0.0.1 reaches the server
// with its own name in `Host` and its own origin in `Origin`. Without a token, both are checked.
const done = { tool_calls: [{ gate: "done", args: { answer: "ok" } }] };
const SPELL = `name: echoer
llm: { provider: scripted, responses: ${JSON.stringify([done, done, done])} }
identity: { system_prompt: "Answer." }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(options: ServeOptions = {}) {
  const loaded = await loadSpellText(SPELL, "echoer.yaml", { loomPath: "memory" });
  app = await createHttpServer(loaded, options);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as { port: number }).port;
  const cast = (headers: Record<string, string>) =>
    browserRequest(
      port,
      "POST",
      "/cast",
      { "content-type": "application/json", ...headers },
      '{"intent":"go"}',
    );
  return { port, cast, loom: loaded.cantrip!.loom };
}

describe("spell serve refuses a rebound name or a foreign page (no token)", () => {
  it("a Host that is not the bound address or a loopback name is refused; the cast never runs", async () => {
    const { port, cast, loom } = await serve();
    for (const host of [`rebind.example:${port}`, "rebind.example", `127.0.0.1.nip.io:${port}`]) {
      const res = await cast({ host });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: "forbidden_host" } });
      expect((await browserRequest(port, "GET", "/healthz", { host })).status).toBe(403);
    }
    expect(loom.size).toBe(0);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost"])
      expect((await browserRequest(port, "GET", "/healthz", { host })).status).toBe(200);
    expect((await cast({ host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it("a browser Origin not allowed is refused; an allowed one gets CORS answers", async () => {
    const allowed = "http://localhost:3000";
    const { port, cast, loom } = await serve({ allowOrigins: [allowed] });
    const host = `127.0.0.1:${port}`;
    for (const origin of ["http://rebind.example", "null", "http://localhost:3001"]) {
      const res = await cast({ host, origin });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: "forbidden_origin" } });
    }
    expect(loom.size).toBe(0);
    const ok = await cast({ host, origin: allowed });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe(allowed);
    const preflight = await browserRequest(port, "OPTIONS", "/cast", {
      host,
      origin: allowed,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(allowed);
    expect(String(preflight.headers["access-control-allow-headers"])).toContain("content-type");
    const foreign = await browserRequest(port, "OPTIONS", "/cast", {
      host,
      origin: "http://rebind.example",
      "access-control-request-method": "POST",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
    // A client that is not a browser sends no Origin.
    expect((await cast({ host })).status).toBe(200);
  });

  it("with a token, the token is the check: any Host or Origin with it, none without it", async () => {
    const token = "tok-rebinding-123456";
    const { port, cast } = await serve({ token });
    const foreign = { host: `rebind.example:${port}`, origin: "http://rebind.example" };
    expect((await cast(foreign)).status).toBe(401);
    expect((await cast({ ...foreign, authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("spell serve --allow-origin (repeatable) reaches the server", async () => {
    const io = {
      env: {},
      cwd: process.cwd(),
      stdout: () => {},
      stderr: (t: string) => void (err += t),
    } as unknown as CliIO;
    let err = "";
    const file = join(mkdtempSync(join(tmpdir(), "serve-origin-")), "s.yaml");
    writeFileSync(file, SPELL);
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const origins = ["http://localhost:3000", "https://app.example"];
    const exit = serveCommand(
      file,
      { port: 0, loom: "memory", allowOrigins: origins },
      io,
      stopped,
    );
    await new Promise<void>((resolve) => {
      const check = () => (/listening on/.test(err) ? resolve() : setTimeout(check, 20));
      check();
    });
    const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(err)![1]);
    const host = `127.0.0.1:${port}`;
    for (const origin of origins)
      expect((await browserRequest(port, "GET", "/healthz", { host, origin })).status).toBe(200);
    expect(
      (await browserRequest(port, "GET", "/healthz", { host, origin: "http://evil.example" }))
        .status,
    ).toBe(403);
    stop();
    expect(await exit).toBe(EXIT.ok);
  });
});
