import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DirectJSON } from "../../src/llm/providers/direct-json.js";
import { retryPolicy, RetryingLLM } from "../../src/llm/retry.js";
import type { LLM } from "../../src/core/contract.js";
import { createAnthropic } from "../../src/llm/providers/anthropic/anthropic-llm.js";
import { createOpenAICompatible } from "../../src/llm/providers/openai/openai-llm.js";
import { pooledFetch } from "../../src/llm/providers/pooled-fetch.js";
import { bothWays, outcome, serve, shape, type Reply } from "../support/direct-wire.js";
import { needs } from "../support/needs.js";
import { ASK_FILES as ask, fixtureJson, testContext } from "../support/providers.js";

// A hostile or broken provider against both adapters, each query sent the direct way
// (src/llm/providers/direct-json.ts) and through its SDK (given the pooled fetch), on loopback
// with fake keys: what the key reaches, what the errors say, what an answer may cost.

type Via = "direct" | "sdk";

interface Provider {
  key: string;
  /** The base URL's path on the loopback server. */
  path: string;
  make(baseUrl: string, via: Via, spec?: Record<string, unknown>): LLM;
}

const PROVIDERS: Record<string, Provider> = {
  openai: {
    key: "sk-test-abcdefghijklmnopqrstuvwxyz0123",
    path: "/v1",
    make(baseUrl, via, spec = {}) {
      const ctx = testContext({ OPENAI_API_KEY: this.key });
      if (via === "sdk") ctx.fetch = pooledFetch();
      return createOpenAICompatible(
        "openai",
        { provider: "openai", model: "gpt-4.1", baseUrl, ...spec },
        ctx,
      );
    },
  },
  anthropic: {
    key: "sk-ant-api03-test0123456789abcdefghijkl",
    path: "",
    make(baseUrl, via, spec = {}) {
      const ctx = testContext({ ANTHROPIC_API_KEY: this.key });
      if (via === "sdk") ctx.fetch = pooledFetch();
      return createAnthropic(
        { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl, ...spec },
        ctx,
      );
    },
  },
};

/** Both ways against the same replies: the same error (or answer), the same requests. */
async function same(p: Provider, replies: Reply[], spec?: Record<string, unknown>) {
  const run = await bothWays(
    replies,
    (baseUrl, via) => p.make(baseUrl, via, spec).query(ask),
    p.path,
  );
  expect(shape(run.direct.error)).toEqual(shape(run.sdk.error));
  expect(run.seen.direct).toEqual(run.seen.sdk);
  return run;
}

/** No piece of the key long enough to matter (its first or last twelve characters). */
function expectNoKey(text: string, key: string): void {
  expect(text).not.toContain(key.slice(0, 12));
  expect(text).not.toContain(key.slice(-12));
}

for (const [name, p] of Object.entries(PROVIDERS)) {
  describe(`${name}: a text answer quoting the key`, () => {
    it.each([
      ["whole", (key: string) => `no model for ${key}`],
      ["cut where the message's quote of it ends", (key: string) => `${"x".repeat(100)}${key}`],
    ])("%s: the error quotes it redacted, both ways", async (_, body) => {
      const { direct } = await same(p, [{ status: 200, body: body(p.key) }]);
      const error = direct.error as Error & { code?: string };
      expect(error.code).toBe("provider_bad_response");
      expect(error.message).toMatch(/got text: .*\[REDACTED\]/);
      expectNoKey(error.message, p.key);
    });
  });
}

for (const [name, p] of Object.entries(PROVIDERS)) {
  describe(`${name}: a failure whose body echoes the key`, () => {
    it.each([401, 400, 500])(
      "%i: the error printed whole, its cause included, shows no key, both ways",
      async (status) => {
        const echo = { error: { message: `Incorrect API key provided: ${p.key}`, type: "x" } };
        const { direct, sdk } = await same(
          p,
          [{ status, body: echo, headers: { "x-echo": `key=${p.key}` } }],
          {
            retry: { max_retries: 0 },
          },
        );
        for (const error of [direct.error, sdk.error]) {
          expect(error).toBeInstanceOf(Error);
          expect((error as Error).cause).toBeDefined(); // the SDK's error is kept under it
          const printed = inspect(error, { depth: Infinity, showHidden: true });
          expect(printed).toContain("[REDACTED]");
          expectNoKey(printed, p.key);
          expectNoKey(JSON.stringify(shape(error)), p.key);
        }
      },
    );
  });
}

describe("openai: a streamed event quoting the key", () => {
  it("the error quotes it redacted, whole or cut where the quote ends", async () => {
    const p = PROVIDERS["openai"]!;
    for (const pad of ["", "x".repeat(90)]) {
      const server = await serve([
        {
          headers: { "content-type": "text/event-stream" },
          body: `data: ${JSON.stringify({ message: `${pad}bad key ${p.key}` })}\n\n`,
        },
      ]);
      const { error } = await outcome(
        p.make(`${server.url}${p.path}`, "direct").query(ask, { onDelta: () => {} }),
      );
      expect((error as { code?: string }).code).toBe("provider_bad_response");
      expect((error as Error).message).toMatch(/without choices: .*\[REDACTED\]/);
      expectNoKey((error as Error).message, p.key);
    }
  });
});

/** A loopback server answering every request with `answer`; it counts them and keeps their headers. */
async function answering(answer: (res: ServerResponse, req: IncomingMessage) => void) {
  const server = createServer((req, res) => {
    s.requests++;
    s.headers.push(req.headers);
    req.resume();
    req.on("end", () => answer(res, req));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const s = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    port: (server.address() as AddressInfo).port,
    requests: 0,
    headers: [] as IncomingMessage["headers"][],
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
  closing.push(s.close);
  return s;
}
const closing: (() => void)[] = [];
afterEach(() => closing.splice(0).forEach((close) => close()));

/** A query the direct way, then the SDK's, under spell's retry policy (its default: 3 retries; no waits). */
async function bothRetried(p: Provider, url: string, maxRetries?: number) {
  const post = vi.spyOn(DirectJSON.prototype, "post");
  const run = (via: Via) =>
    outcome(
      new RetryingLLM(p.make(`${url}${p.path}`, via), retryPolicy({ maxRetries }), {
        sleep: () => Promise.resolve(),
      }).query(ask),
    );
  const direct = await run("direct");
  expect(post).toHaveBeenCalled();
  post.mockClear();
  const sdk = await run("sdk");
  expect(post).not.toHaveBeenCalled();
  return { direct: direct.error, sdk: sdk.error };
}

describe("an answer larger than the pool takes (256 MiB)", () => {
  const p = PROVIDERS["openai"]!;
  const MiB = 2 ** 20;
  const CAP = 256 * MiB; // pooled-request.ts MAX_ANSWER_BYTES
  const tooLarge = (error: unknown) => {
    expect(error).toMatchObject({
      code: "provider_bad_response",
      message: "openai: the answer is larger than 256 MiB",
    });
  };

  it.each([
    // gzip members one after another decompress as one body (as the global fetch reads them)
    ["gzip", () => Buffer.concat(Array(CAP / MiB + 1).fill(gzipSync(Buffer.alloc(MiB, " "))))],
    [
      "br",
      () =>
        brotliCompressSync(Buffer.alloc(CAP + 1, " "), {
          params: { [constants.BROTLI_PARAM_QUALITY]: 1 },
        }),
    ],
  ])(
    "a %s body that decompresses past it is cut, both ways, and not asked for again",
    async (encoding, compress) => {
      const bomb = compress();
      expect(bomb.length).toBeLessThan(MiB); // what the wire carries
      const server = await answering((res) => {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": encoding });
        res.end(bomb);
      });
      const { direct, sdk } = await bothRetried(p, server.url);
      tooLarge(direct);
      expect(shape(direct)).toEqual(shape(sdk));
      expect(server.requests).toBe(2); // one each: the same answer would be cut again
    },
  );

  it("a chunked body that goes on past it is cut there, both ways, and not asked for again", async () => {
    const chunk = Buffer.alloc(MiB, " ");
    const server = await answering((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      let left = CAP / MiB + 16; // it ends, so a client without the bound fails otherwise
      const more = (): void => {
        while (!res.destroyed && left > 0) {
          left--;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        if (!res.destroyed) res.end();
      };
      more();
    });
    const { direct, sdk } = await bothRetried(p, server.url);
    tooLarge(direct);
    expect(shape(direct)).toEqual(shape(sdk));
    expect(server.requests).toBe(2);
  });

  it("a large answer within it is read, both ways", async () => {
    const completion = fixtureJson("openai/chat-text.json") as {
      choices: { message: { content: string } }[];
    };
    const content = "y".repeat(24 * MiB);
    completion.choices[0]!.message.content = content;
    const body = gzipSync(JSON.stringify(completion));
    const server = await answering((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(body);
    });
    for (const via of ["direct", "sdk"] as const) {
      const response = await p.make(`${server.url}${p.path}`, via).query(ask);
      expect(response.content).toBe(content);
    }
  });
});

const OK = (res: ServerResponse): void => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(fixtureJson("openai/chat-text.json")));
};

describe("the key goes to the configured origin only: redirects", () => {
  const p = PROVIDERS["openai"]!;
  // Each names somewhere other than the origin the request went to ({port}: its own port).
  const elsewhere = [
    "http://127.0.0.1:{trap}/v1/chat/completions", // the same host, another port
    "https://127.0.0.1:{port}/v1/chat/completions", // the same host and port, another scheme
    "//127.0.0.1:{trap}/v1/chat/completions", // protocol-relative
    "http://127.0.0.1:{port}@localhost:{trap}/v1/chat/completions", // its origin as userinfo
    "http://localhost:{port}/v1/chat/completions", // the same port, another name for the host
  ];
  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status} to another origin in any spelling: the answer, both ways, not followed`, async () => {
      const trap = await answering(OK);
      for (const location of elsewhere) {
        const server = await answering((res, req) => {
          const port = String(req.socket.localPort);
          res.writeHead(status, {
            location: location.replace("{port}", port).replace("{trap}", String(trap.port)),
          });
          res.end();
        });
        const { direct, sdk } = await bothRetried(p, server.url);
        expect(direct, location).toMatchObject({ status });
        expect(shape(direct)).toEqual(shape(sdk));
        expect(server.requests).toBe(2);
      }
      expect(trap.requests).toBe(0);
    });
  }

  it("a Location with userinfo within the origin: followed with the SDK's own credentials, not its", async () => {
    const server = await answering((res, req) => {
      if (req.url !== "/v1/chat/completions") return OK(res);
      const port = String(req.socket.localPort);
      res.writeHead(307, { location: `http://user:pass@127.0.0.1:${port}/v2/chat/completions` });
      res.end();
    });
    const { direct, sdk } = await bothRetried(p, server.url);
    expect(direct).toBeUndefined();
    expect(sdk).toBeUndefined();
    expect(server.headers.map((h) => h.authorization)).toEqual(Array(4).fill(`Bearer ${p.key}`));
  });

  it("a redirect loop within the origin stops after 20, both ways, as fetch does", async () => {
    const server = await answering((res) => {
      res.writeHead(307, { location: "/v1/chat/completions" });
      res.end();
    });
    const { direct, sdk } = await bothRetried(p, server.url, 0);
    expect(direct).toMatchObject({ code: "provider_connection" });
    expect((direct as Error).message).toContain("redirect count exceeded");
    expect(shape(direct)).toEqual(shape(sdk));
    expect(server.requests).toBe(2 * 21);
  });
});

describe("the key goes to the configured origin only: proxy variables", () => {
  it("HTTP_PROXY, HTTPS_PROXY, ALL_PROXY: read by neither way (nor by the SDKs); the same requests", async () => {
    const proxy = await answering((res) => res.writeHead(502).end());
    for (const name of ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY"])
      vi.stubEnv(name, proxy.url);
    vi.stubEnv("NO_PROXY", "");
    try {
      for (const p of Object.values(PROVIDERS)) {
        const { direct, sdk, seen } = await same(p, [
          {
            body: fixtureJson(
              p === PROVIDERS["openai"] ? "openai/chat-text.json" : "anthropic/message-text.json",
            ) as object,
          },
        ]);
        expect(direct.error).toBeUndefined();
        expect(sdk.error).toBeUndefined();
        expect(seen.direct).toHaveLength(1);
      }
      expect(proxy.requests).toBe(0);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("no header is injected: CR, LF, NUL or a character past Latin-1", () => {
  for (const [name, p] of Object.entries(PROVIDERS)) {
    const bad = ["\r\nX-Injected: 1", "\nX-Injected: 1", "\u0000", "\u20ac"];
    it(`${name}: in a spell's header value or name, or in the key: nothing sent, the same error both ways, the key redacted`, async () => {
      for (const tail of bad) {
        const cases: { spec?: Record<string, unknown>; key?: string }[] = [
          { spec: { headers: { "X-Team": `spells${tail}` } } },
          { spec: { headers: { [`X-Team${tail}`]: "spells" } } },
          { key: `${p.key}${tail}` },
        ];
        for (const c of cases) {
          const make = (baseUrl: string, via: Via) =>
            c.key ? withKey(p, c.key).make(baseUrl, via, c.spec) : p.make(baseUrl, via, c.spec);
          // refused before a request is built: neither way sends anything
          const runs = await neither(p, make);
          expect(runs.seen.direct).toHaveLength(0);
          expect(runs.seen.sdk).toHaveLength(0);
          expect(shape(runs.direct.error)).toEqual(shape(runs.sdk.error));
          expect(runs.direct.error).toBeInstanceOf(Error);
          expectNoKey((runs.direct.error as Error).message, p.key);
        }
      }
    });
  }
});

/** `p` with another key. */
function withKey(p: Provider, key: string): Provider {
  return { ...p, key };
}

/** Both ways, when neither may reach the server (bothWays insists the direct path was taken). */
async function neither(p: Provider, make: (baseUrl: string, via: Via) => LLM) {
  const server = await serve([{ body: {} }]);
  const direct = await outcome(make(`${server.url}${p.path}`, "direct").query(ask));
  const directSeen = server.seen.length;
  const sdk = await outcome(make(`${server.url}${p.path}`, "sdk").query(ask));
  return {
    direct,
    sdk,
    seen: { direct: server.seen.slice(0, directSeen), sdk: server.seen.slice(directSeen) },
  };
}

const noOpenssl = spawnSync("openssl", ["version"]).error ? "openssl is not installed" : undefined;

describe("the key goes to the configured origin only: TLS", () => {
  needs(noOpenssl).it(
    "a certificate no CA signed is refused before any request, both ways",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "provider-tls-"));
      const made = spawnSync("openssl", [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ]);
      expect(made.status).toBe(0);
      let requests = 0;
      const server = createHttpsServer(
        { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
        (_req, res) => {
          requests++;
          OK(res);
        },
      );
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      closing.push(() => server.close());
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const p of Object.values(PROVIDERS)) {
        const { direct, sdk } = await bothRetried(p, url, 0);
        expect(direct).toMatchObject({ code: "provider_connection" });
        expect((direct as Error).message).toMatch(/self[- ]signed certificate/);
        expect(shape(direct)).toEqual(shape(sdk));
      }
      expect(requests).toBe(0);
    },
  );
});

describe("the key goes to the configured origin only: the base URL", () => {
  it("userinfo in the base URL is sent nowhere and shown nowhere; the key goes as before, both ways", async () => {
    for (const p of Object.values(PROVIDERS)) {
      const server = await answering((res) => res.writeHead(401).end());
      const url = server.url.replace("http://", "http://user:pw-userinfo-0123456789@");
      const { direct, sdk } = await bothRetried(p, url, 0);
      expect(direct).toMatchObject({ status: 401 });
      expect(shape(direct)).toEqual(shape(sdk));
      expect((direct as Error).message).not.toContain("pw-userinfo");
      const credentials = server.headers.map((h) => h.authorization ?? h["x-api-key"]);
      expect(credentials).toEqual([expect.stringContaining(p.key), expect.stringContaining(p.key)]);
      expect(JSON.stringify(server.headers)).not.toContain("pw-userinfo");
    }
  });
});

describe("nothing is logged: the SDKs' log variables", () => {
  it("OPENAI_LOG and ANTHROPIC_LOG at debug: no console output, both ways", async () => {
    vi.stubEnv("OPENAI_LOG", "debug");
    vi.stubEnv("ANTHROPIC_LOG", "debug");
    const methods = ["log", "debug", "info", "warn", "error"] as const;
    const spies = methods.map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    try {
      for (const p of Object.values(PROVIDERS)) {
        const server = await answering((res) => {
          res.writeHead(401, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: `bad key ${p.key}` } }));
        });
        const { direct } = await bothRetried(p, server.url, 0);
        expect(direct).toMatchObject({ status: 401 });
      }
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("a slow answer", () => {
  /** Headers at once, then a space every 20 ms, never the end. */
  const drip = (res: ServerResponse): void => {
    res.writeHead(200, { "content-type": "application/json" });
    const timer = setInterval(() => res.write(" "), 20);
    res.on("close", () => clearInterval(timer));
  };

  for (const [name, p] of Object.entries(PROVIDERS)) {
    it(`${name}: a body that drips is ended by the timeout, both ways`, async () => {
      const server = await answering(drip);
      const run = await bothWays(
        [],
        (_, via) => p.make(`${server.url}${p.path}`, via, { timeoutMs: 150 }).query(ask),
        p.path,
      );
      expect(run.direct.error).toMatchObject({ code: "provider_connection" });
      expect((run.direct.error as Error).message).toMatch(/timed out/);
      expect(shape(run.direct.error)).toEqual(shape(run.sdk.error));
    });

    it(`${name}: a body that drips is ended by the cast's cancel, both ways`, async () => {
      const server = await answering(drip);
      const run = await bothWays(
        [],
        (_, via) =>
          p.make(`${server.url}${p.path}`, via).query(ask, { signal: AbortSignal.timeout(100) }),
        p.path,
      );
      expect((run.direct.error as Error).constructor.name).toBe("APIUserAbortError");
      expect(shape(run.direct.error)).toEqual(shape(run.sdk.error));
    });
  }
});

describe("an answer with __proto__ and constructor keys", () => {
  it("pollutes no prototype and reads the same both ways", async () => {
    const completion = fixtureJson("openai/chat-tool-calls-parallel.json") as {
      choices: { message: { tool_calls: { function: { arguments: unknown } }[] } }[];
    };
    const poison = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},';
    completion.choices[0]!.message.tool_calls[0]!.function.arguments = { text: "one" };
    const body = JSON.stringify(completion)
      .replace(/^\{/, poison)
      .replaceAll('"message":{', `"message":${poison}`)
      .replace('"arguments":{', `"arguments":${poison}`);
    const { direct, sdk } = await same(PROVIDERS["openai"]!, [
      { body, headers: { "content-type": "application/json" } },
    ]);
    expect(direct.error).toBeUndefined();
    expect(direct.result).toEqual(sdk.result);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});
