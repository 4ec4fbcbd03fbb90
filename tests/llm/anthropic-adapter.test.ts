import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/contract.js";
import { ProviderError } from "../../src/llm/errors.js";
import { createAnthropic } from "../../src/llm/providers/anthropic/anthropic-llm.js";
import {
  ASK_FILES as ask,
  body,
  ECHO_TOOL as echo,
  failure,
  fixtureText,
  sse,
  testContext,
  withProvider,
  type LoopbackServer,
} from "../support/providers.js";

const KEY = "sk-ant-api03-test0123456789abcdefghijkl";

function anthropic(server: LoopbackServer, spec: Record<string, unknown> = {}) {
  const ctx = testContext({ ANTHROPIC_API_KEY: KEY });
  return {
    llm: createAnthropic(
      { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.url, ...spec },
      ctx,
    ),
    ctx,
  };
}

describe("anthropic adapter through the real SDK (loopback)", () => {
  it("puts the system prompt in `system`, counts cache reads as cached prompt tokens (LLM-6, PROD-3)", async () => {
    await withProvider([body("anthropic/message-text.json")], async (server) => {
      const { llm } = anthropic(server);
      const r = await llm.query(ask);
      expect(r.content).toBe("There are 3 files.");
      expect(r.usage).toEqual({
        promptTokens: 150 + 1050,
        completionTokens: 9,
        cachedTokens: 1050,
      });
      expect(r.metadata).toMatchObject({
        provider: "anthropic",
        model: "claude-sonnet-4-5-20250929",
        stop_reason: "end_turn",
        service_tier: "standard",
      });
      const req = server.requests[0]!;
      expect(req.path).toBe("/v1/messages");
      expect(req.headers["x-api-key"]).toBe(KEY);
      expect(req.headers["anthropic-version"]).toBeDefined();
      expect(req.body).toEqual({
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        system: [{ type: "text", text: "You count files.", cache_control: { type: "ephemeral" } }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "How many files?", cache_control: { type: "ephemeral" } },
            ],
          },
        ],
      });
    });
  });

  it("tool_use blocks become parallel tool calls; required is forced natively with tool_choice any", async () => {
    await withProvider([body("anthropic/message-tool-use-parallel.json")], async (server) => {
      const { llm } = anthropic(server);
      const r = await llm.query(ask, {
        tools: [echo],
        toolChoice: "required",
        extra: { temperature: 0.3, stop: "END" },
      });
      expect(r.content).toBe("I'll echo both words.");
      expect(r.toolCalls).toEqual([
        {
          id: "toolu_01A09q90qw90lq917835lq9",
          name: "echo",
          arguments: '{"text":"one"}',
          input: { text: "one" },
        },
        {
          id: "toolu_01B8s7d6f5g4h3j2k1l0zx9",
          name: "echo",
          arguments: '{"text":"two"}',
          input: { text: "two" },
        },
      ]);
      expect(r.usage.promptTokens).toBe(412 + 1290);
      expect(r.metadata?.["cache_creation_input_tokens"]).toBe(1290);
      const sent = server.requests[0]!.body as Record<string, unknown>;
      expect(sent["tool_choice"]).toEqual({ type: "any" });
      expect(sent["tools"]).toEqual([
        { name: "echo", description: "returns its text", input_schema: echo.parameters },
      ]);
      expect(sent["temperature"]).toBe(0.3);
      expect(sent["stop_sequences"]).toEqual(["END"]);
    });
  });

  it("tool results go back as tool_result blocks of one user message, ids and order exact (LLM-7)", async () => {
    await withProvider([body("anthropic/message-done.json")], async (server) => {
      const { llm } = anthropic(server, { promptCaching: false });
      const history: Message[] = [
        ...ask,
        {
          role: "assistant",
          content: "I'll echo both words.",
          toolCalls: [
            { id: "toolu_A", name: "echo", arguments: '{"text":"one"}' },
            { id: "toolu_B", name: "echo", arguments: '{"text":"two"}' },
          ],
        },
        { role: "tool", toolCallId: "toolu_A", content: "one" },
        { role: "tool", toolCallId: "toolu_B", content: "boom", isError: true },
        { role: "user", content: "No gate was called." },
      ];
      const r = await llm.query(history, { tools: [echo] });
      expect(r.toolCalls).toEqual([
        {
          id: "toolu_01C7d6f5g4h3j2k1l0zx9ab",
          name: "done",
          arguments: '{"answer":"one two"}',
          input: { answer: "one two" },
        },
      ]);
      const sent = server.requests[0]!.body as { messages: unknown[] };
      expect(sent.messages.slice(1)).toEqual([
        {
          role: "assistant",
          content: [
            { type: "text", text: "I'll echo both words." },
            { type: "tool_use", id: "toolu_A", name: "echo", input: { text: "one" } },
            { type: "tool_use", id: "toolu_B", name: "echo", input: { text: "two" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_A", content: "one" },
            { type: "tool_result", tool_use_id: "toolu_B", content: "boom", is_error: true },
            { type: "text", text: "No gate was called." },
          ],
        },
      ]);
    });
  });

  it("thinking blocks become `thinking`, and their signed form goes back with the next request", async () => {
    await withProvider(
      [body("anthropic/message-thinking-tool-use.json"), body("anthropic/message-done.json")],
      async (server) => {
        const { llm } = anthropic(server, { promptCaching: false });
        const extra = { thinking: { type: "enabled", budget_tokens: 2048 } };
        const first = await llm.query(ask, { tools: [echo], extra });
        expect(first.thinking).toBe("The user wants the word echoed. I should call echo.");
        expect(first.toolCalls).toEqual([
          { id: "toolu_01Th1nk", name: "echo", arguments: '{"text":"hi"}', input: { text: "hi" } },
        ]);
        const assistant: Message = {
          role: "assistant",
          content: first.content,
          toolCalls: first.toolCalls!,
          providerData: first.providerData!,
        };
        await llm.query(
          [...ask, assistant, { role: "tool", toolCallId: "toolu_01Th1nk", content: "hi" }],
          { tools: [echo], extra },
        );
        const second = server.requests[1]!.body as {
          messages: { content: { type: string }[] }[];
          max_tokens: number;
        };
        expect(second.max_tokens).toBe(4096 + 2048);
        expect(second.messages[1]!.content.map((b) => b.type)).toEqual([
          "thinking",
          "redacted_thinking",
          "tool_use",
        ]);
        expect((second.messages[1]!.content[0] as { signature?: string }).signature).toMatch(
          /^EqQB/,
        );
      },
    );
  });

  it("with extended thinking, required tool use is not forced (the API forbids it) and a warning says so (LLM-5)", async () => {
    await withProvider([body("anthropic/message-thinking-tool-use.json")], async (server) => {
      const { llm, ctx } = anthropic(server);
      await llm.query(ask, {
        tools: [echo],
        toolChoice: "required",
        extra: { thinking: { type: "enabled", budget_tokens: 1024 }, temperature: 0.5 },
      });
      const sent = server.requests[0]!.body as Record<string, unknown>;
      expect(sent["tool_choice"]).toEqual({ type: "auto" });
      expect(sent["temperature"]).toBeUndefined();
      expect(ctx.warnings.join("\n")).toMatch(/simulated by re-prompting/);
      expect(ctx.warnings.join("\n")).toMatch(
        /"temperature" cannot be combined with extended thinking/,
      );
    });
  });

  it("streams thinking and text deltas, and assembles tool input from JSON fragments", async () => {
    await withProvider([sse("anthropic/message-thinking-tool-use.sse")], async (server) => {
      const { llm } = anthropic(server);
      const deltas: string[] = [];
      const r = await llm.query(ask, {
        tools: [echo],
        onDelta: (d) => deltas.push(`${d.type}:${d.text}`),
      });
      expect(deltas).toEqual([
        "thinking:The user wants both words",
        "thinking: echoed.",
        "text:Echoing both.",
      ]);
      expect(r.thinking).toBe("The user wants both words echoed.");
      expect(r.content).toBe("Echoing both.");
      expect(r.toolCalls).toEqual([
        { id: "toolu_01StrA", name: "echo", arguments: '{"text":"one"}', input: { text: "one" } },
        { id: "toolu_01StrB", name: "echo", arguments: '{"text":"two"}', input: { text: "two" } },
      ]);
      expect(r.usage).toEqual({
        promptTokens: 520 + 300,
        completionTokens: 133,
        cachedTokens: 300,
      });
      expect(r.metadata?.["stop_reason"]).toBe("tool_use");
      expect(server.requests[0]!.body).toMatchObject({ stream: true });
    });
  });

  it("streams plain text (with pings in the stream)", async () => {
    await withProvider([sse("anthropic/message-text.sse")], async (server) => {
      const { llm } = anthropic(server);
      const text: string[] = [];
      const r = await llm.query(ask, { onDelta: (d) => text.push(d.text) });
      expect(text.join("")).toBe("There are 3 files.");
      expect(r.content).toBe("There are 3 files.");
      expect(r.usage.cachedTokens).toBe(1050);
    });
  });

  it("an error event mid-stream is a retryable overloaded error", async () => {
    await withProvider([sse("anthropic/error-event-mid-stream.sse")], async (server) => {
      const { llm } = anthropic(server);
      const err = await failure(llm.query(ask, { onDelta: () => undefined }));
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.code).toBe("provider_overloaded");
    });
  });

  it("a connection dropped mid-stream, or a stream that ends early, is an error, never a partial answer", async () => {
    const cut =
      fixtureText("anthropic/message-text.sse").split("\n\n").slice(0, 5).join("\n\n") + "\n\n";
    await withProvider([sse("anthropic/message-text.sse", 4), { sse: cut }], async (server) => {
      const { llm } = anthropic(server);
      expect((await failure(llm.query(ask, { onDelta: () => undefined }))).code).toBe(
        "provider_connection",
      );
      expect((await failure(llm.query(ask, { onDelta: () => undefined }))).code).toBe(
        "provider_stream_incomplete",
      );
    });
  });

  it.each([
    [400, "anthropic/error-bad-request.json", "provider_bad_request"],
    [401, "anthropic/error-auth.json", "provider_auth"],
    [429, "anthropic/error-rate-limit.json", "rate_limited"],
    [500, "anthropic/error-server.json", "provider_server_error"],
    [529, "anthropic/error-overloaded.json", "provider_overloaded"],
  ])(
    "HTTP %i becomes a coded error carrying the provider's message",
    async (status, file, code) => {
      await withProvider(
        [body(file, status), body(file, status, { "retry-after": "3" })],
        async (server) => {
          const { llm } = anthropic(server);
          const err = await failure(llm.query(ask));
          expect(err.code).toBe(code);
          expect(err.status).toBe(status);
          expect(err.retryAfterMs).toBeUndefined();
          const withHeader = await failure(llm.query(ask));
          expect(withHeader.retryAfterMs).toBe(3000);
        },
      );
    },
  );

  it("'prompt is too long' is the context-window error (LLM-2)", async () => {
    await withProvider([body("anthropic/error-prompt-too-long.json", 400)], async (server) => {
      const { llm } = anthropic(server);
      const err = await failure(llm.query(ask));
      expect(err.code).toBe("context_window_exceeded");
      expect(err.message).toContain("215042 tokens > 200000 maximum");
    });
  });

  it("a malformed body is a bad-response error", async () => {
    await withProvider(
      [
        { status: 200, body: "upstream connect error" },
        { status: 200, body: { type: "message" } },
      ],
      async (server) => {
        const { llm } = anthropic(server);
        expect((await failure(llm.query(ask))).code).toBe("provider_bad_response");
        expect((await failure(llm.query(ask))).code).toBe("provider_bad_response");
      },
    );
  });

  it("OpenAI-only settings are reported and left out; the common ones are translated", async () => {
    await withProvider([body("anthropic/message-text.json")], async (server) => {
      const { llm, ctx } = anthropic(server);
      const r = await llm.query(ask, {
        tools: [echo],
        extra: { seed: 7, max_completion_tokens: 100, user: "u1", parallel_tool_calls: false },
      });
      const sent = server.requests[0]!.body as Record<string, unknown>;
      expect(sent["seed"]).toBeUndefined();
      expect(sent["max_tokens"]).toBe(100);
      expect(sent["metadata"]).toEqual({ user_id: "u1" });
      expect(sent["tool_choice"]).toEqual({ type: "auto", disable_parallel_tool_use: true });
      expect(r.metadata?.["warnings"]).toEqual([
        'anthropic: "seed" is not supported by the Anthropic API; it was not sent',
      ]);
      expect(ctx.warnings).toEqual([
        'anthropic: "seed" is not supported by the Anthropic API; it was not sent',
      ]);
    });
  });
});

describe("anthropic in a whole cast", () => {
  it("extended thinking with tool use: the signed thinking goes back with the next turn (through the medium)", async () => {
    const { loadSpellText } = await import("../../src/spell/index.js");
    await withProvider(
      [body("anthropic/message-thinking-tool-use.json"), body("anthropic/message-done.json")],
      async (server) => {
        const text = `llm: { provider: anthropic, model: claude-sonnet-4-5, base_url: "${server.url}" }
identity: { extra: { thinking: { type: enabled, budget_tokens: 1024 } } }
circle: { gates: [done, echo], wards: [{ max_turns: 4 }] }
`;
        const loaded = await loadSpellText(text, "thinking.yaml", {
          env: { ANTHROPIC_API_KEY: KEY },
          loomPath: "memory",
        });
        const result = await loaded.cantrip!.cast("echo hi, then finish");
        expect(result.result).toBe("one two");
        const second = server.requests[1]!.body as {
          messages: { role: string; content: { type: string }[] }[];
        };
        expect(second.messages[1]!.content.map((b) => b.type)).toEqual([
          "thinking",
          "redacted_thinking",
          "tool_use",
        ]);
        const turn = result.loom.thread(result.lastTurnId!)[0]!;
        expect(turn.metadata).toMatchObject({
          provider: "anthropic",
          attempts: 1,
          llm_response: { thinking: "The user wants the word echoed. I should call echo." },
        });
      },
    );
  });
});
