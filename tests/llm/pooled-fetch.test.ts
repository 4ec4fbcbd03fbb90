// Issue 40: the provider SDKs send through undici's request over one keep-alive pool
// (src/llm/providers/pooled-fetch.ts). What a caller reads must be what the global fetch gave:
// status, headers, a JSON or compressed body, a stream as it arrives, a redirect followed (within
// its origin: the key never goes where an answer points), an abort — against a real server on
// loopback.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pooledFetch } from "../../src/llm/providers/pooled-fetch.js";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const routes: Record<string, Handler> = {
  "/json": (req, res, body) => {
    res.setHeader("content-type", "application/json");
    res.setHeader("set-cookie", ["a=1", "b=2"]);
    res.end(JSON.stringify({ method: req.method, auth: req.headers["authorization"], body }));
  },
  "/headers": (req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(req.rawHeaders));
  },
  "/gzip": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(gzipSync(JSON.stringify({ ok: true })));
  },
  "/empty": (_req, res) => res.writeHead(204).end(),
  "/bom": (_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end('\ufeff{"sum":3}');
  },
  "/error": (_req, res) => {
    res.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
    res.end('{"error":{"message":"slow down"}}');
  },
  "/moved": (_req, res) => res.writeHead(307, { location: "/json" }).end(),
  "/see-other": (_req, res) => res.writeHead(303, { location: "/headers" }).end(),
  "/away": (_req, res) => res.writeHead(307, { location: `${elsewhere}/json` }).end(),
  "/hop": (_req, res) => res.writeHead(302, { location: "/away" }).end(),
  "/loop": (_req, res) => res.writeHead(307, { location: "/loop" }).end(),
  // 3xx that are not redirects, whatever Location they name
  "/300": (_req, res) => res.writeHead(300, { location: "/json" }).end(),
  "/304": (_req, res) => res.writeHead(304, { location: "/json" }).end(),
  "/305": (_req, res) => res.writeHead(305, { location: "/json" }).end(),
  "/sse": (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: one\n\n");
    // The second event only once the first was read: a stream is handed on as it arrives.
    pending = () => res.end("data: two\n\n");
  },
  "/hang": () => {},
};
let pending: (() => void) | undefined;
/** Another origin: it records whatever reaches it. */
let elsewhere = "";
const reachedElsewhere: IncomingMessage["headers"][] = [];
let other: ReturnType<typeof createServer>;
let server: ReturnType<typeof createServer>;
let base = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => routes[req.url ?? ""]!(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = createServer((req, res) => {
    reachedElsewhere.push(req.headers);
    res.end("{}");
  });
  await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
  elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(() => {
  other.closeAllConnections();
  other.close();
  server.closeAllConnections();
  server.close();
});

const fetcher = pooledFetch();

describe("pooledFetch answers as fetch does", () => {
  it("a POST with headers and a string body; the JSON answer, its status and headers", async () => {
    const headers = new Headers({ authorization: "Bearer k", "content-type": "application/json" });
    const res = await fetcher(`${base}/json`, { method: "POST", headers, body: '{"q":1}' });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.url).toBe(`${base}/json`);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ method: "POST", auth: "Bearer k", body: '{"q":1}' });
  });

  it("request headers arrive as the global fetch sends them: a Headers, pairs or a record", async () => {
    /** The request's header lines other than those either client adds (host, connection…). */
    const sent = async (headers: HeadersInit) => {
      const res = await fetcher(`${base}/headers`, { method: "POST", headers, body: "x" });
      const raw = (await res.json()) as string[];
      const lines: string[] = [];
      for (let i = 0; i < raw.length; i += 2)
        if (raw[i]!.toLowerCase().startsWith("x-"))
          lines.push(`${raw[i]!.toLowerCase()}: ${raw[i + 1]}`);
      return lines.sort();
    };
    const headers = new Headers({ "X-Stainless-Lang": "js", "x-b": "1" });
    headers.append("X-B", "2");
    expect(await sent(headers)).toEqual(["x-b: 1, 2", "x-stainless-lang: js"]);
    expect(
      await sent([
        ["X-B", "1"],
        ["x-b", "2"],
        ["x-stainless-lang", "js"],
      ]),
    ).toEqual(["x-b: 1, 2", "x-stainless-lang: js"]);
    expect(await sent({ "X-B": "1", "x-stainless-lang": "js" })).toEqual([
      "x-b: 1",
      "x-stainless-lang: js",
    ]);
    // A request's set-cookie values (a Headers keeps them apart) are joined as before.
    const cookies = new Headers({ "x-a": "1" });
    cookies.append("set-cookie", "a=1");
    cookies.append("set-cookie", "b=2");
    const res = await fetcher(`${base}/headers`, { method: "POST", headers: cookies, body: "x" });
    const raw = (await res.json()) as string[];
    expect(raw.filter((_, i) => raw[i - 1]?.toLowerCase() === "set-cookie")).toEqual(["a=1, b=2"]);
  });

  it("a success's body is read once, in any form a Response gives it", async () => {
    const res = await fetcher(`${base}/bom`);
    const copy = res.clone();
    expect(res.bodyUsed).toBe(false);
    expect(await res.json()).toEqual({ sum: 3 }); // the byte order mark left out, as fetch does
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    expect(() => res.clone()).toThrow(TypeError);
    expect(copy.url).toBe(`${base}/bom`);
    expect(copy.headers.get("content-type")).toBe("application/json");
    expect(await copy.text()).toBe('{"sum":3}');
    const bytes = await (await fetcher(`${base}/bom`)).arrayBuffer();
    expect(Buffer.from(bytes).toString("utf8")).toBe('\ufeff{"sum":3}');
    const stream = (await fetcher(`${base}/bom`)).body!;
    expect(await new Response(stream).json()).toEqual({ sum: 3 });
  });

  it("a gzip body is decompressed; a 204 has no body", async () => {
    expect(await (await fetcher(`${base}/gzip`)).json()).toEqual({ ok: true });
    const empty = await fetcher(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("an error status keeps its body and headers (read twice, as the error wrapper does)", async () => {
    const res = await fetcher(`${base}/error`, { method: "POST", body: "{}" });
    expect(res.ok).toBe(false);
    expect(res.status).toBe(429);
    expect(res.statusText).toBe("Too Many Requests");
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.clone().text()).toBe('{"error":{"message":"slow down"}}');
    expect(await res.json()).toEqual({ error: { message: "slow down" } });
  });

  it("a redirect is followed, the body sent again to where it points", async () => {
    const res = await fetcher(`${base}/moved`, { method: "POST", body: "again" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { body: string }).body).toBe("again");
  });

  it("a POST answered 303 is sent again as a GET, without its body and the headers saying what it was", async () => {
    const res = await fetcher(`${base}/see-other`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    const sent = (await res.json()) as string[];
    const names = sent.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).toContain("authorization"); // the same origin
    expect(names).not.toContain("content-type");
    expect(names).not.toContain("content-length");
  });

  it("a redirect to another origin is not followed, at the first hop or a later one: it is the answer", async () => {
    for (const path of ["/away", "/hop"]) {
      const res = await fetcher(`${base}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer k", "x-api-key": "secret" },
        body: "{}",
      });
      expect(res.status).toBe(307);
      expect(res.headers.get("location")).toBe(`${elsewhere}/json`);
    }
    expect(reachedElsewhere).toHaveLength(0);
  });

  it("only 301, 302, 303, 307 and 308 are followed: another 3xx naming a Location is the answer, as fetch gives it", async () => {
    for (const status of [300, 304, 305]) {
      const init = { method: "POST", headers: { authorization: "Bearer k" }, body: "{}" };
      const res = await fetcher(`${base}/${status}`, init);
      const viaFetch = await fetch(`${base}/${status}`, init);
      await viaFetch.arrayBuffer();
      expect(res.status).toBe(status);
      expect(res.status).toBe(viaFetch.status);
      expect(res.url).toBe(`${base}/${status}`);
      expect(res.headers.get("location")).toBe("/json");
    }
  });

  it("more than 20 redirects fail as fetch fails", async () => {
    const err = (await fetcher(`${base}/loop`).catch((e: unknown) => e)) as TypeError;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe("fetch failed");
    expect((err.cause as Error).message).toBe("redirect count exceeded");
    const global = (await fetch(`${base}/loop`).catch((e: unknown) => e)) as TypeError;
    expect((global.cause as Error).message).toBe("redirect count exceeded");
  });

  it("an event stream is read as it arrives, before the server ends it", async () => {
    const res = await fetcher(`${base}/sse`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe("data: one\n\n");
    pending!();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += Buffer.from(r.value).toString();
    expect(rest).toBe("data: two\n\n");
  });

  it("an abort rejects the request with an AbortError", async () => {
    const controller = new AbortController();
    const res = fetcher(`${base}/hang`, { signal: controller.signal });
    controller.abort();
    await expect(res).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("a successful answer read whole reads as a Response does", () => {
  const post = () => fetcher(`${base}/json`, { method: "POST", body: "x" });

  it("is read once: a second read rejects as fetch's does", async () => {
    const res = await post();
    expect(res.bodyUsed).toBe(false);
    expect(JSON.parse(await res.text())).toMatchObject({ method: "POST", body: "x" });
    expect(res.bodyUsed).toBe(true);
    await expect(res.json()).rejects.toThrow(TypeError);
    await expect(res.arrayBuffer()).rejects.toThrow(TypeError);
  });

  it("bytes, a clone, its body stream and a Blob give the same answer", async () => {
    const text = await (await post()).text();
    expect(Buffer.from(await (await post()).arrayBuffer()).toString()).toBe(text);
    expect(Buffer.from(await (await post()).bytes()).toString()).toBe(text);
    const res = await post();
    const copy = res.clone();
    expect(copy.status).toBe(200);
    expect(await copy.text()).toBe(text);
    expect(await res.json()).toEqual(JSON.parse(text));
    const streamed = await post();
    let read = "";
    const reader = streamed.body!.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read())
      read += Buffer.from(r.value).toString();
    expect(read).toBe(text);
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.text()).rejects.toThrow(TypeError);
    expect(await (await (await post()).blob()).text()).toBe(text);
  });
});

describe("a successful answer's headers read as a response's Headers do", () => {
  it("by any case; entries sorted, each set-cookie apart, as the global fetch gives them", async () => {
    const res = await fetcher(`${base}/json`, { method: "POST", body: "x" });
    const viaFetch = await fetch(`${base}/json`, { method: "POST", body: "x" });
    await viaFetch.text();
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.has("SET-COOKIE")).toBe(true);
    expect(res.headers.get("set-cookie")).toBe(viaFetch.headers.get("set-cookie"));
    expect(res.headers.get("x-missing")).toBeNull();
    const pairs = (h: Headers) => Array.from(h as unknown as Iterable<[string, string]>);
    const same = (h: Headers) => pairs(h).filter(([name]) => name !== "date");
    expect(same(res.headers)).toEqual(same(viaFetch.headers));
    const keys = (h: Headers) => Array.from((h as unknown as { keys(): Iterable<string> }).keys());
    expect(keys(res.headers)).toEqual(keys(viaFetch.headers));
    const seen: string[] = [];
    res.headers.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toContain("set-cookie=a=1");
    expect(() => res.headers.set("x", "1")).toThrow(TypeError);
    expect(() => res.headers.append("x", "1")).toThrow(TypeError);
    expect(() => res.headers.delete("content-type")).toThrow(TypeError);
    // A Response made from it (clone) carries the same headers.
    expect(same(res.clone().headers)).toEqual(same(viaFetch.headers));
  });
});
