import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it, vi } from "vitest";
import type { Message, QueryOptions } from "../../src/core/contract.js";
import { createAnthropic } from "../../src/llm/providers/anthropic/anthropic-llm.js";
import { DirectJSON } from "../../src/llm/providers/direct-json.js";
import { pooledFetch } from "../../src/llm/providers/pooled-fetch.js";
import { retryPolicy, RetryingLLM } from "../../src/llm/retry.js";
import {
  bothWays,
  outcome,
  serve,
  servers,
  shape,
  toolRoundTrip,
  type Reply,
} from "../support/direct-wire.js";
import {
  ASK_FILES as ask,
  ECHO_TOOL as echo,
  fixtureJson,
  fixtureText,
  testContext,
} from "../support/providers.js";

// The Anthropic adapter's direct path for a plain request against the SDK's own request path
// (the adapter given the pooled fetch it used by default before), against the same server.

const KEY = "sk-ant-api03-test0123456789abcdefghijkl";

function adapter(baseUrl: string, via: "direct" | "sdk", spec: Record<string, unknown> = {}) {
  const ctx = testContext({ ANTHROPIC_API_KEY: KEY });
  if (via === "sdk") ctx.fetch = pooledFetch();
  return createAnthropic(
    { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl, ...spec },
    ctx,
  );
}

const textReply: Reply = { body: fixtureJson("anthropic/message-text.json") as object };

const history = toolRoundTrip("toolu_");

const shapes: {
  name: string;
  spec?: Record<string, unknown>;
  messages?: Message[];
  options?: QueryOptions;
  reply?: Reply;
  path?: string;
}[] = [
  { name: "a system prompt (cached) and a user message" },
  {
    name: "tools, tool_choice required, hyperparameters",
    options: {
      tools: [echo],
      toolChoice: "required",
      extra: { temperature: 0.2, max_tokens: 300 },
    },
    reply: { body: fixtureJson("anthropic/message-tool-use-parallel.json") as object },
  },
  {
    name: "a tool round trip, tool_choice none, no prompt caching",
    messages: history,
    options: { tools: [echo], toolChoice: "none" },
    spec: { promptCaching: false },
    reply: { body: fixtureJson("anthropic/message-done.json") as object },
  },
  {
    name: "the spell's headers (a beta), a timeout of its own",
    spec: {
      headers: { "anthropic-beta": "prompt-caching-2024-07-31", "X-Team": "spells" },
      timeoutMs: 45_000,
    },
  },
  { name: "a base URL with a path", path: "/proxy/anthropic" },
];

describe("the Anthropic direct path sends what the SDK sends", () => {
  for (const c of shapes) {
    it(`${c.name}: method, URL, every header in order, the body; the same response`, async () => {
      const { direct, sdk, seen } = await bothWays(
        [c.reply ?? textReply],
        (baseUrl, via) => adapter(baseUrl, via, c.spec).query(c.messages ?? ask, c.options ?? {}),
        c.path ?? "",
      );
      expect(direct.error).toBeUndefined();
      expect(sdk.error).toBeUndefined();
      expect(seen.direct).toHaveLength(1);
      expect(seen.direct).toEqual(seen.sdk);
      expect(direct.result).toEqual(sdk.result);
      const names = seen.direct[0]!.rawHeaders.filter((_, i) => i % 2 === 0);
      expect(names).toEqual(
        expect.arrayContaining([
          "x-api-key",
          "anthropic-version",
          "x-stainless-timeout",
          "x-stainless-retry-count",
        ]),
      );
    });
  }

  it("the SDK's own response object, with its _request_id", async () => {
    const server = await serve([{ ...textReply, headers: { "request-id": "req_ant" } }]);
    const client = new Anthropic({
      apiKey: KEY,
      baseURL: server.url,
      maxRetries: 0,
      fetch: pooledFetch(),
    });
    const sdk = await client.messages.create({ model: "m", max_tokens: 1, messages: [] });
    const post = vi.spyOn(DirectJSON.prototype, "post");
    await adapter(server.url, "direct").query(ask);
    const direct = (await post.mock.results[0]!.value) as typeof sdk;
    expect(direct).toEqual(sdk);
    expect(direct._request_id).toBe("req_ant");
    expect(sdk._request_id).toBe("req_ant");
    expect(Object.keys(direct)).toEqual(Object.keys(sdk));
  });
});

describe("the Anthropic direct path fails as the SDK's path does", () => {
  const failures: { name: string; replies: Reply[]; spec?: Record<string, unknown> }[] = [
    {
      name: "a 401",
      replies: [{ status: 401, body: fixtureJson("anthropic/error-auth.json") as object }],
    },
    {
      name: "a 429 with retry-after",
      replies: [
        {
          status: 429,
          headers: { "retry-after": "3" },
          body: fixtureJson("anthropic/error-rate-limit.json") as object,
        },
      ],
    },
    {
      name: "a 529 overloaded",
      replies: [{ status: 529, body: fixtureJson("anthropic/error-overloaded.json") as object }],
    },
    {
      name: "prompt too long",
      replies: [
        { status: 400, body: fixtureJson("anthropic/error-prompt-too-long.json") as object },
      ],
    },
    { name: "a 502 with a text body", replies: [{ status: 502, body: "bad gateway" }] },
    {
      name: "a 200 with broken JSON",
      replies: [{ headers: { "content-type": "application/json" }, body: '{"type": "mess' }],
    },
    { name: "a 200 that is not a message", replies: [{ body: { hello: "world" } }] },
    { name: "the connection dropped", replies: [{ drop: true }] },
    {
      name: "no answer within the timeout",
      replies: [{ delayMs: 400, ...textReply }],
      spec: { timeoutMs: 50 },
    },
  ];
  for (const f of failures) {
    it(`${f.name}: the same error or the same answer`, async () => {
      const { direct, sdk, seen } = await bothWays(f.replies, (baseUrl, via) =>
        adapter(baseUrl, via, f.spec).query(ask),
      );
      expect(shape(direct.error)).toEqual(shape(sdk.error));
      expect(direct.result).toEqual(sdk.result);
      expect(seen.direct).toEqual(seen.sdk);
      expect((direct.error as Error | undefined)?.message ?? "").not.toContain(KEY);
    });
  }

  it("a tool_use input nested deeper than JSON.stringify follows is a coded error, both ways", async () => {
    const depth = 200_000;
    const input = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    const body = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"echo","input":${input}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`;
    const { direct, sdk } = await bothWays(
      [{ headers: { "content-type": "application/json" }, body }],
      (baseUrl, via) => adapter(baseUrl, via).query(ask),
    );
    for (const outcome of [direct, sdk]) {
      expect(outcome.error).toMatchObject({
        code: "provider_bad_response",
        message: expect.stringContaining('tool_use "echo" is nested too deep to encode') as unknown,
      });
    }
  });

  it("a timeout longer than a timer can wait is the longest one, not one that fires at once", async () => {
    const { direct, sdk } = await bothWays([{ delayMs: 30, ...textReply }], (baseUrl, via) =>
      adapter(baseUrl, via, { timeoutMs: 2 ** 32 }).query(ask),
    );
    expect(direct.error).toBeUndefined();
    expect(sdk.error).toBeUndefined();
    expect(direct.result).toEqual(sdk.result);
  });

  it("a refused connection", async () => {
    const server = await serve([textReply]);
    await server.close();
    servers.length = 0;
    const direct = await outcome(adapter(server.url, "direct").query(ask));
    const sdk = await outcome(adapter(server.url, "sdk").query(ask));
    expect((direct.error as Error).message).toMatch(/connection failed.*ECONNREFUSED/);
    expect(shape(direct.error)).toEqual(shape(sdk.error));
  });

  it("the cast's signal, while waiting for the answer", async () => {
    const during = await bothWays([{ delayMs: 300, ...textReply }], (baseUrl, via) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 30);
      return adapter(baseUrl, via).query(ask, { signal: controller.signal });
    });
    expect(shape(during.direct.error)).toEqual(shape(during.sdk.error));
    expect((during.direct.error as Error).constructor.name).toBe("APIUserAbortError");
  });

  it("spell's retry policy retries an overloaded answer the same way", async () => {
    const replies: Reply[] = [
      { status: 529, body: fixtureJson("anthropic/error-overloaded.json") as object },
      textReply,
    ];
    const { direct, sdk, seen } = await bothWays(replies, (baseUrl, via) =>
      new RetryingLLM(adapter(baseUrl, via), retryPolicy({}), {
        sleep: () => Promise.resolve(),
        random: () => 0.5,
      }).query(ask),
    );
    expect(direct.result).toEqual(sdk.result);
    expect(seen.direct).toHaveLength(2);
    expect(seen.direct).toEqual(seen.sdk);
  });
});

describe("the Anthropic key stays with the configured origin", () => {
  it("a redirect elsewhere is not followed, streamed or not (x-api-key would go with it)", async () => {
    const elsewhere = await serve([textReply]);
    const moved: Reply = { status: 307, redirectTo: `${elsewhere.url}/v1/messages` };
    const { direct, sdk } = await bothWays([moved], (baseUrl, via) =>
      adapter(baseUrl, via).query(ask),
    );
    expect(shape(direct.error)).toEqual(shape(sdk.error));
    expect(direct.error).toMatchObject({ status: 307 });
    const server = await serve([moved]);
    const streamed = await outcome(adapter(server.url, "direct").query(ask, { onDelta: () => {} }));
    expect(streamed.error).toMatchObject({ status: 307 });
    expect(elsewhere.seen).toHaveLength(0);
  });
});

describe("what stays on the Anthropic SDK's path", () => {
  it("a streamed query", async () => {
    const server = await serve([
      {
        body: fixtureText("anthropic/message-text.sse"),
        headers: { "content-type": "text/event-stream" },
      },
    ]);
    const post = vi.spyOn(DirectJSON.prototype, "post");
    const r = await adapter(server.url, "direct").query(ask, { onDelta: () => {} });
    expect(r.content).toBe("There are 3 files.");
    expect(post).not.toHaveBeenCalled();
  });

  it("a model the SDK deprecates: its warning is still written at every request", async () => {
    const server = await serve([textReply]);
    const post = vi.spyOn(DirectJSON.prototype, "post");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const llm = adapter(server.url, "direct", { model: "claude-3-opus-20240229" });
    await llm.query(ask);
    await llm.query(ask);
    expect(post).not.toHaveBeenCalled();
    expect(warn.mock.calls.filter(([m]) => String(m).includes("is deprecated"))).toHaveLength(2);
  });
});
