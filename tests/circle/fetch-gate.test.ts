import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchGate, type FetchOptions } from "../../src/circle/gates/index.js";
import { checkAllowed, parseAllowEntry, parseTarget } from "../../src/circle/gates/fetch-allow.js";
import { fileGateContext as ctx } from "../support/gate-context.js";
import { Loopback } from "../support/loopback-http.js";

const web = new Loopback();
beforeAll(() => web.start());
afterAll(() => web.stop());

const gate = (options: FetchOptions = {}) => fetchGate({ allow: [web.origin], ...options });
const call = (g: ReturnType<typeof fetchGate>, args: Record<string, unknown>) =>
  Promise.resolve().then(() => g.execute(args, ctx));
const run = (options: FetchOptions, args: Record<string, unknown>) =>
  Promise.resolve().then(() => fetchGate(options).execute(args, ctx));

describe("fetch gate: what may go out", () => {
  it("denies everything without an allowlist, before any client call or connection", async () => {
    const calls: unknown[] = [];
    const spy: typeof fetch = (...args) => {
      calls.push(args);
      return Promise.reject(new Error("the client must not be called"));
    };
    const before = { connections: web.connections, requests: web.requests.length };
    for (const allow of [undefined, []]) {
      const options = { ...(allow ? { allow } : {}), fetch: spy };
      await expect(run(options, { url: `${web.origin}/hello` })).rejects.toThrow(
        "fetch: host 127.0.0.1 is not allowed: the allowlist is empty",
      );
      // A name that resolves nowhere: a lookup would fail differently; the denial comes first.
      await expect(
        run(options, { url: "https://no-such-host.invalid/x?token=s3cr3t" }),
      ).rejects.toThrow(/^fetch: host no-such-host\.invalid is not allowed/);
    }
    // The real client, a denied loopback URL: the server sees no connection at all.
    await expect(run({ allow: [] }, { url: `${web.origin}/hello` })).rejects.toThrow(/not allowed/);
    expect(calls).toEqual([]);
    expect(web.connections).toBe(before.connections);
    expect(web.requests.length).toBe(before.requests);
  });

  it("matches *.domain below the domain only, and a host exactly", () => {
    const allow = ["*.example.org", "api.github.com"].map(parseAllowEntry);
    const ok = (url: string) => {
      try {
        checkAllowed(allow, new URL(url));
        return true;
      } catch {
        return false;
      }
    };
    expect(ok("https://a.example.org/x")).toBe(true);
    expect(ok("https://b.a.example.org/")).toBe(true);
    expect(ok("https://A.Example.ORG./")).toBe(true);
    expect(ok("https://example.org/")).toBe(false);
    expect(ok("https://example.org.evil.com/")).toBe(false);
    expect(ok("https://aexample.org/")).toBe(false);
    expect(ok("https://api.github.com/zen")).toBe(true);
    expect(ok("https://x.api.github.com/")).toBe(false);
    // https on the default port unless an entry says otherwise.
    expect(ok("http://api.github.com/zen")).toBe(false);
    expect(ok("https://api.github.com:8443/zen")).toBe(false);
  });

  it("compares hosts as the URL parser reads them: other spellings of an allowed host only", () => {
    const allow = ["api.github.com", "http://127.0.0.1:8080", "http://[::1]:9000", "bücher.de"];
    const entries = allow.map(parseAllowEntry);
    const verdict = (url: string) => {
      try {
        checkAllowed(entries, parseTarget(url));
        return "allow";
      } catch (err) {
        return (err as Error).message;
      }
    };
    // The same hosts, spelled otherwise: the parser's canonical form is what is connected to.
    for (const same of [
      "https://API.GITHUB.COM./",
      "https://api%2egithub%2ecom/",
      "https://api．github．com/",
      "https://api.github.com:443/",
      "http://2130706433:8080/",
      "http://0x7f.1:8080/",
      "http://[0:0::1]:9000/",
      "https://xn--bcher-kva.de/",
      "https://BÜCHER.de/",
    ])
      expect(verdict(same), same).toBe("allow");
    // Other hosts dressed as allowed ones.
    for (const other of [
      "https://api.github.com.evil.com/",
      "https://evil.com#@api.github.com",
      "https://evil.com\\@api.github.com",
      "http://[::ffff:127.0.0.1]:8080/",
    ])
      expect(verdict(other), other).toMatch(/^fetch: host \S+ is not allowed/);
    for (const creds of ["https://api.github.com@evil.com/", "http://127.0.0.1:8080@evil.com/"])
      expect(verdict(creds), creds).toMatch(/credentials in the URL are refused \(evil\.com\)/);
    expect(verdict("https://api.github.com%2f.evil.com/")).toMatch(/must be an absolute/);
    expect(() => parseAllowEntry("user@api.github.com")).toThrow(/write a host/);
  });

  it("holds scheme and port to the entry, and refuses odd URLs and entries", async () => {
    const https = [`127.0.0.1:${web.port}`]; // https only
    await expect(run({ allow: https }, { url: `${web.origin}/` })).rejects.toThrow(
      `allowed only as 127.0.0.1:${web.port}`,
    );
    await expect(run({ allow: ["http://127.0.0.1"] }, { url: `${web.origin}/` })).rejects.toThrow(
      /not allowed/,
    );
    await expect(run({ allow: [web.origin] }, { url: "file:///etc/passwd" })).rejects.toThrow(
      "scheme file: is not allowed",
    );
    await expect(
      run({ allow: [web.origin] }, { url: `http://u:p@127.0.0.1:${web.port}/` }),
    ).rejects.toThrow("credentials in the URL are refused");
    for (const entry of ["https://x.org/path", "ftp://x.org", "*.", "a.*.org", ""])
      expect(() => parseAllowEntry(entry)).toThrow(/fetch: /);
  });
});

describe("fetch gate: the exchange", () => {
  it("GETs an allowed URL and returns the status line and the body as text", async () => {
    web.routes.set("/hello", (_q, res) =>
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("héllo"),
    );
    expect(await gate().execute({ url: `${web.origin}/hello?x=1` }, ctx)).toBe("200 OK\n\nhéllo");
    expect(web.requests.at(-1)).toMatchObject({ method: "GET", url: "/hello?x=1" });
  });

  it("answers a non-2xx status as an error with the status and the body's start", async () => {
    web.routes.set("/gone", (_q, res) =>
      res.writeHead(410, { "content-type": "text/plain" }).end("it left"),
    );
    await expect(call(gate(), { url: `${web.origin}/gone?token=abc` })).rejects.toThrow(
      `fetch: ${web.origin}/gone answered 410 Gone\nit left`,
    );
    await expect(call(gate(), { url: `${web.origin}/gone?token=abc` })).rejects.not.toThrow(/abc/);
  });

  it("follows an allowed redirect and refuses one to a host off the list, without going there", async () => {
    web.routes.set("/moved", (_q, res) => res.writeHead(302, { location: "/hello" }).end());
    web.routes.set("/away", (_q, res) =>
      res.writeHead(301, { location: `http://localhost:${web.port}/hello` }).end(),
    );
    expect(await gate().execute({ url: `${web.origin}/moved` }, ctx)).toBe("200 OK\n\nhéllo");
    const before = web.requests.length;
    await expect(call(gate(), { url: `${web.origin}/away` })).rejects.toThrow(
      "fetch: redirect from 127.0.0.1:" + web.port + " refused: host localhost is not allowed",
    );
    expect(web.requests.slice(before).map((r) => r.host)).toEqual([`127.0.0.1:${web.port}`]);
    web.routes.set("/loop", (_q, res) => res.writeHead(307, { location: "/loop" }).end());
    await expect(call(gate({ maxRedirects: 2 }), { url: `${web.origin}/loop` })).rejects.toThrow(
      "more than 2 redirects",
    );
  });

  it("refuses a body larger than max_bytes, announced or streamed", async () => {
    web.routes.set("/big", (_q, res) => res.writeHead(200).end("x".repeat(5000)));
    web.routes.set("/stream", (_q, res) => {
      res.writeHead(200, { "transfer-encoding": "chunked" });
      for (let i = 0; i < 10; i++) res.write("y".repeat(500));
      res.end();
    });
    for (const path of ["/big", "/stream"])
      await expect(call(gate({ maxBytes: 1000 }), { url: `${web.origin}${path}` })).rejects.toThrow(
        `is larger than max_bytes (1000)`,
      );
    expect(await gate({ maxBytes: 5000 }).execute({ url: `${web.origin}/big` }, ctx)).toHaveLength(
      5000 + "200 OK\n\n".length,
    );
  });

  it("gives up after timeout_ms on a server that never answers", async () => {
    web.routes.set("/never", () => undefined);
    await expect(call(gate({ timeoutMs: 100 }), { url: `${web.origin}/never` })).rejects.toThrow(
      `fetch: 127.0.0.1:${web.port} did not answer within 100 ms`,
    );
  });

  it("timeout_ms covers the body too: a server that stops sending mid-body is given up on", async () => {
    web.routes.set("/drip", (_q, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first part");
    });
    await expect(call(gate({ timeoutMs: 200 }), { url: `${web.origin}/drip` })).rejects.toThrow(
      `fetch: 127.0.0.1:${web.port} did not answer within 200 ms`,
    );
  });

  it("takes POST with a text body only when the spell lists it", async () => {
    web.routes.set("/echo", (_q, res, body) => res.writeHead(201).end(`got ${body}`));
    const url = `${web.origin}/echo`;
    await expect(call(gate(), { url, method: "POST", body: "x" })).rejects.toThrow(
      "fetch: method POST is not allowed (GET)",
    );
    const post = gate({ methods: ["GET", "POST"] });
    expect(await post.execute({ url, method: "post", body: "x=1" }, ctx)).toBe(
      "201 Created\n\ngot x=1",
    );
    expect(web.requests.at(-1)).toMatchObject({ method: "POST", body: "x=1" });
    await expect(call(post, { url, body: "x" })).rejects.toThrow(
      "a body is a string, sent with POST only",
    );
  });

  it("says plainly when the host cannot be reached", async () => {
    const closed = new Loopback();
    await closed.start();
    const origin = closed.origin;
    await new Promise<void>((r) => closed.server.close(() => r()));
    await expect(run({ allow: [origin] }, { url: `${origin}/` })).rejects.toThrow(
      /fetch: cannot reach 127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
  });
});
