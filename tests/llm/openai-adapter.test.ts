import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/contract.js";
import { ProviderError } from "../../src/llm/errors.js";
import { createOpenAICompatible } from "../../src/llm/providers/openai/openai-llm.js";
import {
  ASK_FILES as ask,
  body,
  ECHO_TOOL as echo,
  failure,
  fixtureJson,
  fixtureText as sseText,
  sse,
  testContext,
  withProvider,
  type LoopbackServer,
} from "../support/providers.js";

const KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123";

function openai(
  server: LoopbackServer,
  flavor: "openai" | "openrouter" | "local" | "google" = "openai",
  spec: Record<string, unknown> = {},
) {
  const ctx = testContext(
    flavor === "local" ? {} : { OPENAI_API_KEY: KEY, OPENROUTER_API_KEY: KEY, GEMINI_API_KEY: KEY },
  );
  const llm = createOpenAICompatible(
    flavor,
    { provider: flavor, model: "gpt-4.1", baseUrl: `${server.url}/v1`, ...spec },
    ctx,
  );
  return { llm, ctx };
}

describe("openai adapter through the real SDK (loopback)", () => {
  it("normalises a text completion: content, usage with cached tokens, provider fields in metadata (LLM-6)", async () => {
    await withProvider([body("openai/chat-text.json")], async (server) => {
      const { llm } = openai(server);
      const r = await llm.query(ask);
      expect(r.content).toBe("There are 3 files.");
      expect(r.toolCalls).toBeNull();
      expect(r.usage).toEqual({ promptTokens: 1200, completionTokens: 7, cachedTokens: 1024 });
      expect(r.metadata).toMatchObject({
        provider: "openai",
        model: "gpt-4.1-2025-04-14",
        finish_reason: "stop",
        system_fingerprint: "fp_b3f1157249",
      });
      const req = server.requests[0]!;
      expect(req.path).toBe("/v1/chat/completions");
      expect(req.headers["authorization"]).toBe(`Bearer ${KEY}`);
      expect(req.body).toEqual({
        model: "gpt-4.1",
        messages: [
          { role: "system", content: "You count files." },
          { role: "user", content: "How many files?" },
        ],
      });
    });
  });

  it("sends tools and tool_choice, and returns parallel tool calls with their ids", async () => {
    await withProvider([body("openai/chat-tool-calls-parallel.json")], async (server) => {
      const { llm } = openai(server);
      const r = await llm.query(ask, {
        tools: [echo],
        toolChoice: "required",
        extra: { temperature: 0.2, max_tokens: 300 },
      });
      expect(r.content).toBeNull();
      expect(r.toolCalls).toEqual([
        { id: "call_FthC9qRpsL5kBpwwyw6c7j4k", name: "echo", arguments: '{"text":"one"}' },
        { id: "call_8a2LZpVv3XYTkEXgwrM0h1bK", name: "echo", arguments: '{"text":"two"}' },
      ]);
      const sent = server.requests[0]!.body as Record<string, unknown>;
      expect(sent["tool_choice"]).toBe("required");
      expect(sent["tools"]).toEqual([
        {
          type: "function",
          function: { name: "echo", description: "returns its text", parameters: echo.parameters },
        },
      ]);
      expect(sent["temperature"]).toBe(0.2);
      expect(sent["max_completion_tokens"]).toBe(300); // OpenAI's current name
      expect(sent["max_tokens"]).toBeUndefined();
    });
  });

  it("keeps call ids and order through a tool round trip (LLM-7)", async () => {
    await withProvider([body("openai/chat-done.json")], async (server) => {
      const { llm } = openai(server);
      const history: Message[] = [
        ...ask,
        {
          role: "assistant",
          content: null,
          toolCalls: [
            { id: "call_A", name: "echo", arguments: '{"text":"one"}' },
            { id: "call_B", name: "echo", arguments: '{"text":"two"}' },
          ],
        },
        { role: "tool", toolCallId: "call_A", content: "one" },
        { role: "tool", toolCallId: "call_B", content: "no such thing", isError: true },
      ];
      await llm.query(history, { tools: [echo] });
      const wire = (server.requests[0]!.body as { messages: unknown[] }).messages;
      expect(wire.slice(2)).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_A",
              type: "function",
              function: { name: "echo", arguments: '{"text":"one"}' },
            },
            {
              id: "call_B",
              type: "function",
              function: { name: "echo", arguments: '{"text":"two"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_A", content: "one" },
        { role: "tool", tool_call_id: "call_B", content: "Error: no such thing" },
      ]);
    });
  });

  it("refuses to send a tool result that answers no call (LLM-7), without a request", async () => {
    await withProvider([body("openai/chat-text.json")], async (server) => {
      const { llm } = openai(server);
      const err = await failure(
        llm.query([...ask, { role: "tool", toolCallId: "call_X", content: "orphan" }]),
      );
      expect(err.message).toContain("tool result without matching tool call");
      expect(server.requests).toHaveLength(0);
    });
  });

  it("streams text deltas over SSE and ends with the same response as JSON", async () => {
    await withProvider([sse("openai/chat-text.sse")], async (server) => {
      const { llm } = openai(server);
      const deltas: string[] = [];
      const r = await llm.query(ask, { onDelta: (d) => deltas.push(`${d.type}:${d.text}`) });
      expect(deltas).toEqual(["text:There", "text: are 3", "text: files."]);
      expect(r.content).toBe("There are 3 files.");
      expect(r.usage).toEqual({ promptTokens: 1200, completionTokens: 7, cachedTokens: 1024 });
      expect(server.requests[0]!.body).toMatchObject({
        stream: true,
        stream_options: { include_usage: true },
      });
    });
  });

  it("assembles streamed parallel tool calls from argument fragments", async () => {
    await withProvider([sse("openai/chat-tool-calls-parallel.sse")], async (server) => {
      const { llm } = openai(server);
      const r = await llm.query(ask, { tools: [echo], onDelta: () => undefined });
      expect(r.toolCalls).toEqual([
        { id: "call_FthC9qRpsL5kBpwwyw6c7j4k", name: "echo", arguments: '{"text":"one"}' },
        { id: "call_8a2LZpVv3XYTkEXgwrM0h1bK", name: "echo", arguments: '{"text":"two"}' },
      ]);
      expect(r.metadata?.["finish_reason"]).toBe("tool_calls");
    });
  });

  it("a connection dropped mid-stream is a retryable error, never a partial answer", async () => {
    await withProvider([sse("openai/chat-text.sse", 3)], async (server) => {
      const { llm } = openai(server);
      const deltas: string[] = [];
      const err = await failure(llm.query(ask, { onDelta: (d) => deltas.push(d.text) }));
      expect(err).toBeInstanceOf(ProviderError);
      expect(["provider_connection", "provider_stream_incomplete"]).toContain(err.code);
      expect(deltas).toEqual(["There", " are 3"]); // what arrived before the cut was shown
    });
  });

  it("a connection dropped before any response is a connection error", async () => {
    await withProvider([{ drop: true }], async (server) => {
      const { llm } = openai(server);
      const err = await failure(llm.query(ask));
      expect(err.code).toBe("provider_connection");
    });
  });

  it.each([
    [400, "openai/error-bad-request.json", "provider_bad_request"],
    [401, "openai/error-invalid-key.json", "provider_auth"],
    [429, "openai/error-rate-limit.json", "rate_limited"],
    [500, "openai/error-server.json", "provider_server_error"],
    [529, "openai/error-server.json", "provider_overloaded"],
  ])("HTTP %i becomes a coded error with the status", async (status, file, code) => {
    await withProvider([body(file, status)], async (server) => {
      const { llm } = openai(server);
      const err = await failure(llm.query(ask));
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.code).toBe(code);
      expect(err.status).toBe(status);
      expect(err.message).toContain(
        (fixtureJson(file) as { error: { message: string } }).error.message.slice(0, 30),
      );
      expect(err.retryAfterMs).toBeUndefined();
    });
  });

  it("reads Retry-After in seconds and retry-after-ms", async () => {
    await withProvider(
      [
        body("openai/error-rate-limit.json", 429, { "retry-after": "7" }),
        body("openai/error-server.json", 503, { "retry-after-ms": "250" }),
      ],
      async (server) => {
        const { llm } = openai(server);
        expect((await failure(llm.query(ask))).retryAfterMs).toBe(7000);
        expect((await failure(llm.query(ask))).retryAfterMs).toBe(250);
      },
    );
  });

  it("context-window overflow is its own error code (LLM-2)", async () => {
    await withProvider([body("openai/error-context-length.json", 400)], async (server) => {
      const { llm } = openai(server);
      const err = await failure(llm.query(ask));
      expect(err.code).toBe("context_window_exceeded");
      expect(err.message).toContain("context window");
      expect(err.message).toContain("maximum context length is 128000 tokens");
    });
  });

  it("a malformed body is a bad-response error, whether text or broken JSON", async () => {
    await withProvider(
      [
        { status: 200, body: "<html>502 Bad Gateway</html>" },
        {
          status: 200,
          body: '{"id": "chatcmpl-1", "choices": [',
          headers: { "content-type": "application/json" },
        },
        { status: 200, body: { id: "x", object: "chat.completion" } },
      ],
      async (server) => {
        const { llm } = openai(server);
        for (let i = 0; i < 3; i++)
          expect((await failure(llm.query(ask))).code).toBe("provider_bad_response");
      },
    );
  });

  it("redacts the key from error messages a provider echoes (PROD-8)", async () => {
    await withProvider(
      [
        {
          status: 401,
          body: {
            error: {
              message: `Incorrect API key provided: ${KEY}.`,
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
          },
        },
      ],
      async (server) => {
        const { llm } = openai(server);
        const err = await failure(llm.query(ask));
        expect(err.message).not.toContain(KEY);
        expect(err.message).toContain("[REDACTED]");
      },
    );
  });

  it("openrouter: base URL path, attribution headers, fallback models, and the model that answered", async () => {
    await withProvider([body("openai/openrouter-fallback.json")], async (server) => {
      const { llm } = openai(server, "openrouter", {
        model: "auto",
        models: ["anthropic/claude-sonnet-4.5", "openai/gpt-4.1"],
        appUrl: "https://example.org",
        appName: "Spellbook test",
      });
      expect(llm.name).toBe("openrouter/openrouter/auto");
      const r = await llm.query(ask);
      const req = server.requests[0]!;
      expect(req.body).toMatchObject({
        model: "openrouter/auto",
        models: ["anthropic/claude-sonnet-4.5", "openai/gpt-4.1"],
      });
      expect(req.headers["http-referer"]).toBe("https://example.org");
      expect(req.headers["x-title"]).toBe("Spellbook test");
      expect(r.metadata).toMatchObject({
        model: "anthropic/claude-sonnet-4.5",
        upstream_provider: "Anthropic",
        cost: 0.000222,
        reasoning_tokens: 8,
      });
      expect(r.thinking).toBe("The capital of France is Paris.");
      expect((req.body as Record<string, unknown>)["max_completion_tokens"]).toBeUndefined();
    });
  });

  it("local: no key needed, ids synthesised when a server omits them (LLM-4), max_tokens kept", async () => {
    await withProvider([body("openai/local-no-tool-ids.json")], async (server) => {
      const { llm } = openai(server, "local", { model: "qwen3:8b" });
      const r = await llm.query(ask, { tools: [echo], extra: { max_tokens: 64 } });
      expect(r.toolCalls).toHaveLength(1);
      expect(r.toolCalls![0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
      expect(r.toolCalls![0]!.arguments).toBe('{"text":"hi"}');
      expect(r.content).toBeNull();
      expect(r.thinking).toBe("The user wants an echo.");
      expect(r.metadata?.["synthesized_tool_call_ids"]).toBe(1);
      expect((server.requests[0]!.body as Record<string, unknown>)["max_tokens"]).toBe(64);
    });
  });

  it("google: Gemini's OpenAI-compatible path and key", async () => {
    await withProvider([body("openai/chat-text.json")], async (server) => {
      const { llm } = openai(server, "google", {
        model: "gemini-2.5-flash",
        baseUrl: `${server.url}/v1beta/openai/`,
      });
      await llm.query(ask);
      expect(server.requests[0]!.path).toBe("/v1beta/openai/chat/completions");
      expect(server.requests[0]!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    });
  });

  it("settings it cannot honour are warnings, never silent drops", async () => {
    await withProvider(
      [body("openai/chat-text.json"), body("openai/chat-text.json")],
      async (server) => {
        const { llm, ctx } = openai(server);
        const r = await llm.query(ask, { extra: { n: 3, stream: true } });
        expect(r.metadata?.["warnings"]).toEqual([
          "openai: n=3 is not supported (one reply per query); it was not sent",
          'openai: the identity sets "stream", which Spellbook controls; it was not sent',
        ]);
        await llm.query(ask, { extra: { n: 3 } });
        expect(ctx.warnings).toHaveLength(2); // told once per distinct warning
        expect(server.requests[0]!.body).not.toHaveProperty("n");
      },
    );
  });

  it("reads the message of error bodies not shaped like OpenAI's (vLLM, Gemini)", async () => {
    await withProvider(
      [
        {
          status: 400,
          body: {
            object: "error",
            message: "This model's maximum context length is 4096 tokens.",
            type: "BadRequestError",
            code: 400,
          },
        },
        {
          status: 404,
          body: [
            { error: { code: 404, message: "models/gemini-9 is not found", status: "NOT_FOUND" } },
          ],
        },
        { status: 503, body: "upstream unavailable" },
      ],
      async (server) => {
        const { llm } = openai(server, "local");
        const overflow = await failure(llm.query(ask));
        expect(overflow.code).toBe("context_window_exceeded");
        expect(overflow.message).toContain("maximum context length is 4096 tokens");
        expect((await failure(llm.query(ask))).message).toContain("models/gemini-9 is not found");
        expect((await failure(llm.query(ask))).message).toContain("upstream unavailable");
      },
    );
  });

  it("a stream event without choices is a bad response", async () => {
    await withProvider(
      [{ sse: 'data: {"object":"error","message":"boom"}\n\ndata: [DONE]\n\n' }],
      async (server) => {
        const { llm } = openai(server);
        expect((await failure(llm.query(ask, { onDelta: () => undefined }))).code).toBe(
          "provider_bad_response",
        );
      },
    );
  });

  it("a stream that ends cleanly but early is incomplete, not an answer", async () => {
    const cut = sseText("openai/chat-text.sse").split("\n\n").slice(0, 3).join("\n\n") + "\n\n";
    await withProvider([{ sse: cut }], async (server) => {
      const { llm } = openai(server);
      expect((await failure(llm.query(ask, { onDelta: () => undefined }))).code).toBe(
        "provider_stream_incomplete",
      );
    });
  });

  it("a cancel mid-stream rejects with the cancel, not a provider error, and is not retried by the policy", async () => {
    await withProvider([sse("openai/chat-text.sse", 3)], async (server) => {
      const { llm } = openai(server);
      const controller = new AbortController();
      const pending = llm.query(ask, {
        signal: controller.signal,
        onDelta: () => controller.abort("interrupted"),
      });
      const err = await failure(pending);
      expect(err).not.toBeInstanceOf(ProviderError);
      expect(controller.signal.aborted).toBe(true);
    });
  });
});
