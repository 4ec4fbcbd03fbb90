import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import type { Message, QueryOptions } from "../../src/core/contract.js";
import { DirectJSON } from "../../src/llm/providers/direct-json.js";
import { createOpenAICompatible } from "../../src/llm/providers/openai/openai-llm.js";
import { pooledFetch } from "../../src/llm/providers/pooled-fetch.js";
import { retryPolicy, RetryingLLM } from "../../src/llm/retry.js";
import {
  ASK_FILES as ask,
  ECHO_TOOL as echo,
  fixtureJson,
  fixtureText,
  testContext,
} from "../support/providers.js";
import {
  bothWays,
  outcome,
  serve,
  servers,
  shape,
  toolRoundTrip,
  type Reply,
} from "../support/direct-wire.js";

// The direct path for a plain request (src/llm/providers/direct-json.ts) against the SDK's own
// request path (the adapter given a fetch: the pooled fetch it used by default before), each
// run against the same loopback server: what the server receives, what the adapter returns and
// what it throws must be the same.

const KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123";

type Flavor = "openai" | "openrouter" | "local" | "google";

function adapter(
  baseUrl: string,
  via: "direct" | "sdk",
  flavor: Flavor = "openai",
  spec: Record<string, unknown> = {},
) {
  const ctx = testContext(
    flavor === "local" ? {} : { OPENAI_API_KEY: KEY, OPENROUTER_API_KEY: KEY, GEMINI_API_KEY: KEY },
  );
  // the SDK's path: given a fetch (the pooled one, the default before the direct path)
  if (via === "sdk") ctx.fetch = pooledFetch();
  return createOpenAICompatible(
    flavor,
    { provider: flavor, model: "gpt-4.1", baseUrl, ...spec },
    ctx,
  );
}

const textReply: Reply = { body: fixtureJson("openai/chat-text.json") as object };

const history = toolRoundTrip("call_");

const shapes: {
  name: string;
  flavor?: Flavor;
  spec?: Record<string, unknown>;
  messages?: Message[];
  options?: QueryOptions;
  path?: string;
  reply?: Reply;
}[] = [
  { name: "a system prompt and a user message" },
  {
    name: "tools, tool_choice required, hyperparameters",
    options: {
      tools: [echo],
      toolChoice: "required",
      extra: { temperature: 0.2, max_tokens: 300 },
    },
    reply: { body: fixtureJson("openai/chat-tool-calls-parallel.json") as object },
  },
  {
    name: "a tool round trip, tool_choice none",
    messages: history,
    options: { tools: [echo], toolChoice: "none" },
    reply: { body: fixtureJson("openai/chat-done.json") as object },
  },
  {
    name: "the spell's headers, a timeout of its own",
    spec: { headers: { "X-Team": "spells", "api-key": "second-key" }, timeoutMs: 45_000 },
  },
  {
    name: "openrouter: attribution headers and fallback models",
    flavor: "openrouter",
    spec: {
      model: "auto",
      models: ["anthropic/claude-sonnet-4.5", "openai/gpt-4.1"],
      appUrl: "https://example.org",
      appName: "Spellbook test",
    },
    reply: { body: fixtureJson("openai/openrouter-fallback.json") as object },
  },
  { name: "local: no key", flavor: "local", spec: { model: "qwen3:8b" } },
  {
    name: "google: Gemini's compatible path",
    flavor: "google",
    spec: { model: "gemini-2.5-flash" },
    path: "/v1beta/openai/",
  },
];

describe("the direct path sends what the SDK sends", () => {
  for (const c of shapes) {
    it(`${c.name}: method, URL, every header in order, the body; the same response`, async () => {
      const { direct, sdk, seen } = await bothWays(
        [c.reply ?? textReply],
        (baseUrl, via) =>
          adapter(baseUrl, via, c.flavor, c.spec).query(c.messages ?? ask, c.options ?? {}),
        c.path,
      );
      expect(direct.error).toBeUndefined();
      expect(sdk.error).toBeUndefined();
      expect(seen.direct).toHaveLength(1);
      expect(seen.direct).toEqual(seen.sdk);
      expect(direct.result).toEqual(sdk.result);
      const names = seen.direct[0]!.rawHeaders.filter((_, i) => i % 2 === 0);
      expect(names).toEqual(
        expect.arrayContaining(["user-agent", "x-stainless-retry-count", "x-stainless-os"]),
      );
    });
  }

  it("headers the SDK reads from the environment (OPENAI_CUSTOM_HEADERS) are sent too", async () => {
    vi.stubEnv("OPENAI_CUSTOM_HEADERS", "X-From-Env: yes");
    try {
      const { direct, sdk, seen } = await bothWays([textReply], (baseUrl, via) =>
        adapter(baseUrl, via).query(ask),
      );
      expect(direct.result).toEqual(sdk.result);
      expect(seen.direct).toEqual(seen.sdk);
      expect(seen.direct[0]!.rawHeaders).toContain("x-from-env");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("a second query on the same adapter sends the same again (captured once, nothing per request)", async () => {
    const build = vi.spyOn(OpenAI.prototype, "buildRequest");
    const { seen } = await bothWays([textReply], async (baseUrl, via) => {
      const llm = adapter(baseUrl, via);
      await llm.query(ask);
      return llm.query(ask);
    });
    expect(seen.direct).toEqual(seen.sdk);
    expect(seen.direct[0]).toEqual(seen.direct[1]);
    expect(build).toHaveBeenCalledTimes(1 + 2); // the direct adapter's capture; the SDK's two requests
  });

  it("the SDK's own response object: fields, usage, choices and its _request_id", async () => {
    const server = await serve([textReply]);
    const client = new OpenAI({
      apiKey: KEY,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
      fetch: pooledFetch(),
    });
    const sdk = await client.chat.completions.create({ model: "m", messages: [] });
    const llm = adapter(`${server.url}/v1`, "direct");
    const post = vi.spyOn(DirectJSON.prototype, "post");
    await llm.query(ask);
    const direct = (await post.mock.results[0]!.value) as typeof sdk;
    expect(direct).toEqual(sdk);
    expect(direct._request_id).toBe("req_test");
    expect(sdk._request_id).toBe("req_test");
    expect(Object.keys(direct)).toEqual(Object.keys(sdk)); // _request_id not enumerable in either
  });
});

describe("the direct path fails as the SDK's path does", () => {
  const failures: { name: string; replies: Reply[]; spec?: Record<string, unknown> }[] = [
    {
      name: "a 400 with OpenAI's error body",
      replies: [
        {
          status: 400,
          body: { error: { message: "bad tool", type: "invalid_request_error", code: "bad" } },
        },
      ],
    },
    {
      name: "a 401 echoing the key (redacted)",
      replies: [
        {
          status: 401,
          body: {
            error: {
              message: `Incorrect API key provided: ${KEY}`,
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
          },
        },
      ],
    },
    {
      name: "a 429 with Retry-After",
      replies: [
        {
          status: 429,
          headers: { "retry-after": "7" },
          body: { error: { message: "slow down", type: "rate_limit" } },
        },
      ],
    },
    {
      name: "a context-window overflow",
      replies: [{ status: 400, body: fixtureJson("openai/error-context-length.json") as object }],
    },
    { name: "a 500 with a text body", replies: [{ status: 500, body: "upstream exploded" }] },
    {
      name: "a 503 with a gzip JSON body",
      replies: [{ status: 503, gzip: true, body: { message: "vLLM says no" } }],
    },
    { name: "a 404 with an empty body", replies: [{ status: 404, body: "" }] },
    {
      name: "a 200 with broken JSON",
      replies: [
        { status: 200, headers: { "content-type": "application/json" }, body: '{"id": "x", "choi' },
      ],
    },
    { name: "a 200 that is not JSON", replies: [{ status: 200, body: "<html>hello</html>" }] },
    { name: "a 200 JSON that is not a completion", replies: [{ body: { hello: "world" } }] },
    { name: "a 204", replies: [{ status: 204, body: "" }] },
    {
      name: "a gzip 200 completion",
      replies: [{ gzip: true, body: fixtureJson("openai/chat-text.json") as object }],
    },
    { name: "the connection dropped before any answer", replies: [{ drop: true }] },
    {
      name: "no answer within the timeout",
      replies: [{ delayMs: 400, ...textReply }],
      spec: { timeoutMs: 50 },
    },
  ];
  for (const f of failures) {
    it(`${f.name}: the same error (class, message, status, headers, body) or the same answer`, async () => {
      const { direct, sdk, seen } = await bothWays(f.replies, (baseUrl, via) =>
        adapter(baseUrl, via, "openai", f.spec).query(ask),
      );
      expect(shape(direct.error)).toEqual(shape(sdk.error));
      expect(direct.result).toEqual(sdk.result);
      expect(seen.direct).toEqual(seen.sdk);
      // the message spell shows is redacted; the SDK's error under it is as the SDK made it
      expect((direct.error as Error | undefined)?.message ?? "").not.toContain(KEY);
    });
  }

  it("a timeout longer than a timer can wait is the longest one, not one that fires at once", async () => {
    const { direct, sdk } = await bothWays([{ delayMs: 30, ...textReply }], (baseUrl, via) =>
      adapter(baseUrl, via, "openai", { timeoutMs: 2 ** 32 }).query(ask),
    );
    expect(direct.error).toBeUndefined();
    expect(sdk.error).toBeUndefined();
    expect(direct.result).toEqual(sdk.result);
  });

  it("a refused connection", async () => {
    const server = await serve([textReply]);
    const url = `${server.url}/v1`;
    await server.close();
    servers.length = 0;
    const direct = await outcome(adapter(url, "direct").query(ask));
    const sdk = await outcome(adapter(url, "sdk").query(ask));
    expect((direct.error as Error).message).toMatch(/connection failed.*ECONNREFUSED/);
    expect(shape(direct.error)).toEqual(shape(sdk.error));
  });

  it("the cast's signal: aborted before, and while waiting for the answer", async () => {
    const before = await bothWays([textReply], (baseUrl, via) =>
      adapter(baseUrl, via).query(ask, { signal: AbortSignal.abort() }),
    );
    expect(shape(before.direct.error)).toEqual(shape(before.sdk.error));
    expect((before.direct.error as Error).constructor.name).toBe("APIUserAbortError");
    expect(before.seen.direct).toHaveLength(0);

    const during = await bothWays([{ delayMs: 300, ...textReply }], (baseUrl, via) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 30);
      return adapter(baseUrl, via).query(ask, { signal: controller.signal });
    });
    expect(shape(during.direct.error)).toEqual(shape(during.sdk.error));
    expect((during.direct.error as Error).constructor.name).toBe("APIUserAbortError");
  });

  it("spell's retry policy retries a 429 and a dropped connection the same way", async () => {
    const replies: Reply[] = [
      { status: 429, headers: { "retry-after-ms": "5" }, body: { error: { message: "slow" } } },
      { drop: true },
      textReply,
    ];
    const { direct, sdk, seen } = await bothWays(replies, (baseUrl, via) => {
      const sleeps: number[] = [];
      const llm = new RetryingLLM(adapter(baseUrl, via), retryPolicy({}), {
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
        random: () => 0.5,
      });
      return llm.query(ask).then((r) => ({ r, sleeps }));
    });
    expect(direct.result).toEqual(sdk.result);
    expect(seen.direct).toHaveLength(3);
    expect(seen.direct).toEqual(seen.sdk); // x-stainless-retry-count stays 0: the SDK does not retry
  });
});

describe("credentials go where they went before", () => {
  it("a redirect within the origin is followed: the same requests, the same answer", async () => {
    const { direct, sdk, seen } = await bothWays(
      [{ status: 307, redirectTo: "/v2/chat/completions" }, textReply],
      (baseUrl, via) => adapter(baseUrl, via).query(ask),
    );
    expect(direct.error).toBeUndefined();
    expect(direct.result).toEqual(sdk.result);
    expect(seen.direct.map((s) => s.url)).toEqual(["/v1/chat/completions", "/v2/chat/completions"]);
    expect(seen.direct).toEqual(seen.sdk); // the key went again, to the same origin
  });

  it("a redirect to another origin is not followed: the key stays, the status is the error", async () => {
    const elsewhere = await serve([textReply]);
    const { direct, sdk, seen } = await bothWays(
      [{ status: 307, redirectTo: `${elsewhere.url}/v1/chat/completions` }],
      (baseUrl, via) => adapter(baseUrl, via).query(ask),
    );
    expect(elsewhere.seen).toHaveLength(0);
    expect(shape(direct.error)).toEqual(shape(sdk.error));
    expect(direct.error).toMatchObject({ status: 307 });
    expect(seen.direct).toEqual(seen.sdk);
  });

  it("a 3xx that is not a redirect (300, 304, 305) is the answer: its Location is not followed", async () => {
    for (const status of [300, 304, 305]) {
      const { direct, sdk, seen } = await bothWays(
        [{ status, headers: { location: "/v2/chat/completions" }, body: "" }],
        (baseUrl, via) => adapter(baseUrl, via).query(ask),
      );
      expect(seen.direct.map((s) => s.url)).toEqual(["/v1/chat/completions"]);
      expect(seen.direct).toEqual(seen.sdk);
      expect(direct.error).toMatchObject({ status });
      expect(shape(direct.error)).toEqual(shape(sdk.error));
    }
  });

  it("sends to the configured base URL only, whatever an answer names", async () => {
    const { seen, server } = await bothWays(
      [
        {
          headers: { location: "http://127.0.0.1:1/v1" },
          body: fixtureJson("openai/chat-text.json") as object,
        },
      ],
      async (baseUrl, via) => {
        const llm = adapter(baseUrl, via);
        await llm.query(ask);
        return llm.query(ask);
      },
    );
    expect(server.seen).toHaveLength(4);
    expect(seen.direct.map((s) => s.url)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
  });

  it("nothing of the key in what an adapter shows of itself", () => {
    const llm = adapter("http://127.0.0.1:9/v1", "direct");
    expect(JSON.stringify(llm)).not.toContain(KEY);
    expect(String(Object.values(llm))).not.toContain(KEY);
  });
});

describe("what stays on the SDK's path", () => {
  it("a streamed query", async () => {
    const server = await serve([
      {
        body: fixtureText("openai/chat-text.sse"),
        headers: { "content-type": "text/event-stream" },
      },
    ]);
    const post = vi.spyOn(DirectJSON.prototype, "post");
    const r = await adapter(`${server.url}/v1`, "direct").query(ask, { onDelta: () => {} });
    expect(r.content).toBe("There are 3 files.");
    expect(post).not.toHaveBeenCalled();
  });

  it("a spell's own fetch", async () => {
    const server = await serve([textReply]);
    const post = vi.spyOn(DirectJSON.prototype, "post");
    const ctx = testContext({ OPENAI_API_KEY: KEY });
    let calls = 0;
    ctx.fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const llm = createOpenAICompatible(
      "openai",
      { provider: "openai", model: "m", baseUrl: `${server.url}/v1` },
      ctx,
    );
    await llm.query(ask);
    expect(calls).toBe(1);
    expect(post).not.toHaveBeenCalled();
  });
});
