import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/contract.js";
import { AnthropicStreamAccumulator } from "../../src/llm/providers/anthropic/anthropic-stream.js";
import {
  buildAnthropicRequest,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "../../src/llm/providers/anthropic/convert-to-anthropic.js";
import { fromAnthropicMessage } from "../../src/llm/providers/anthropic/map-anthropic-response.js";
import type { AnthropicStreamEvent } from "../../src/llm/providers/anthropic/wire.js";
import {
  buildOpenAIRequest,
  fromOpenAIMessages,
  toOpenAIMessages,
} from "../../src/llm/providers/openai/convert-to-openai.js";
import { fromOpenAICompletion } from "../../src/llm/providers/openai/map-openai-response.js";
import { OpenAIStreamAccumulator } from "../../src/llm/providers/openai/openai-stream.js";
import type { OpenAIChunk } from "../../src/llm/providers/openai/wire.js";
import { anthropicMessageToSSE, chatCompletionToSSE } from "../../src/llm/loopback/stream-body.js";
import { fixtureJson, sseEvents } from "../support/providers.js";

/** The `data:` payloads of an SSE text. */
const dataOf = (text: string): unknown[] =>
  text
    .split("\n\n")
    .map((e) =>
      e
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6),
    )
    .filter((d): d is string => d !== undefined && d !== "[DONE]")
    .map((d) => JSON.parse(d) as unknown);

/** A conversation with parallel calls, an error result, and a second round. */
const thread: Message[] = [
  { role: "system", content: "identity" },
  { role: "system", content: "capability" },
  { role: "user", content: "intent" },
  {
    role: "assistant",
    content: "calling",
    toolCalls: [
      { id: "c1", name: "read", arguments: '{"path":"a"}' },
      { id: "c2", name: "read", arguments: '{"path":"b"}' },
    ],
  },
  { role: "tool", toolCallId: "c1", content: "A" },
  { role: "tool", toolCallId: "c2", content: "B" },
  {
    role: "assistant",
    content: null,
    toolCalls: [{ id: "c3", name: "done", arguments: '{"answer":"AB"}' }],
  },
  { role: "tool", toolCallId: "c3", content: "AB" },
];

describe("openai converters", () => {
  it("round-trips messages exactly: ids, order, pairing (LLM-7)", () => {
    expect(fromOpenAIMessages(toOpenAIMessages(thread))).toEqual(thread);
  });

  it("an assistant message without calls always has string content", () => {
    expect(toOpenAIMessages([{ role: "assistant", content: null }])).toEqual([
      { role: "assistant", content: "" },
    ]);
  });

  it("tool_choice is sent only with tools", () => {
    expect(
      buildOpenAIRequest(thread, { toolChoice: "required" }, { flavor: "openai", model: "m" }).body,
    ).not.toHaveProperty("tool_choice");
  });

  it("passes provider-specific extra through, keeps `models` to openrouter", () => {
    const { body, warnings } = buildOpenAIRequest(
      thread,
      { extra: { top_p: 0.9, reasoning_effort: "low", user: "u" } },
      { flavor: "local", model: "m", models: ["x"] },
    );
    expect(body).toMatchObject({ top_p: 0.9, reasoning_effort: "low", user: "u" });
    expect(body).not.toHaveProperty("models");
    expect(warnings).toEqual([]);
  });

  it("maps a JSON body and the same reply streamed to equal responses", () => {
    const json = fromOpenAICompletion(
      fixtureJson("openai/chat-tool-calls-parallel.json"),
      "openai",
    ).response;
    const acc = new OpenAIStreamAccumulator("openai");
    for (const chunk of sseEvents("openai/chat-tool-calls-parallel.sse"))
      acc.push(chunk as OpenAIChunk);
    const streamed = fromOpenAICompletion(acc.finish(), "openai").response;
    expect(streamed.toolCalls).toEqual(json.toolCalls);
    expect(streamed.usage).toEqual(json.usage);
  });

  it("a refusal is the model's content, flagged in metadata", () => {
    const r = fromOpenAICompletion(
      {
        choices: [
          { message: { content: null, refusal: "I can't help with that." }, finish_reason: "stop" },
        ],
      },
      "openai",
    );
    expect(r.response.content).toBe("I can't help with that.");
    expect(r.response.metadata?.["refusal"]).toBe(true);
    expect(r.warnings).toContain("openai: the reply reported no token usage; counted as 0");
  });

  it("an empty reply maps to neither content nor calls (the engine rejects it, LLM-3)", () => {
    const r = fromOpenAICompletion(
      {
        choices: [{ message: { content: "" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 0 },
      },
      "openai",
    );
    expect(r.response.content).toBeNull();
    expect(r.response.toolCalls).toBeNull();
  });

  it("duplicate ids are kept as they came, for the engine to reject (LLM-4)", () => {
    const call = { id: "same", type: "function", function: { name: "echo", arguments: "{}" } };
    const r = fromOpenAICompletion(
      {
        choices: [
          { message: { content: null, tool_calls: [call, call] }, finish_reason: "tool_calls" },
        ],
      },
      "openai",
    );
    expect(r.response.toolCalls!.map((c) => c.id)).toEqual(["same", "same"]);
  });

  it("a stream without finish_reason is incomplete", () => {
    const acc = new OpenAIStreamAccumulator("openai");
    acc.push({ choices: [{ index: 0, delta: { content: "half" } }] });
    expect(() => acc.finish()).toThrow(/stream ended before the reply was complete/);
  });
});

describe("anthropic converters", () => {
  it("leading system messages become the system prompt; results merge into one user message", () => {
    const { system, messages } = toAnthropicMessages(thread);
    expect(system).toEqual(["identity", "capability"]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: "A" },
      { type: "tool_result", tool_use_id: "c2", content: "B" },
    ]);
  });

  it("round-trips messages exactly: ids, order, pairing (LLM-7)", () => {
    const { system, messages } = toAnthropicMessages(thread);
    expect(fromAnthropicMessages(system, messages)).toEqual(thread);
  });

  it("a later system message stays where it is, as user text", () => {
    const { system, messages } = toAnthropicMessages([
      { role: "user", content: "hi" },
      { role: "system", content: "summary of earlier turns" },
    ]);
    expect(system).toEqual([]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "text", text: "summary of earlier turns" },
        ],
      },
    ]);
  });

  it("arguments that are not a JSON object are kept, not dropped", () => {
    const { messages } = toAnthropicMessages([
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "t", name: "echo", arguments: "{not json" }],
      },
      { role: "tool", toolCallId: "t", content: "arguments are not valid JSON", isError: true },
    ]);
    expect(messages[1]!.content[0]).toEqual({
      type: "tool_use",
      id: "t",
      name: "echo",
      input: { _raw_arguments: "{not json" },
    });
  });

  it("cache breakpoints: the system prompt and the newest message", () => {
    const { body } = buildAnthropicRequest(thread, {}, { model: "m" });
    expect(body.system![1]!.cache_control).toEqual({ type: "ephemeral" });
    expect(body.system![0]!.cache_control).toBeUndefined();
    const last = body.messages[body.messages.length - 1]!;
    expect(last.content[last.content.length - 1]).toMatchObject({
      cache_control: { type: "ephemeral" },
    });
  });

  it("maps a JSON body and the same reply streamed to equal responses", () => {
    const acc = new AnthropicStreamAccumulator();
    for (const e of sseEvents("anthropic/message-text.sse")) acc.push(e as AnthropicStreamEvent);
    const streamed = fromAnthropicMessage(acc.finish()).response;
    const json = fromAnthropicMessage(fixtureJson("anthropic/message-text.json")).response;
    expect(streamed.content).toEqual(json.content);
    expect(streamed.usage).toEqual(json.usage);
  });

  it("tool input that does not parse stays text (the gate reports it)", () => {
    const acc = new AnthropicStreamAccumulator();
    acc.push({
      type: "message_start",
      message: { id: "m", content: [], usage: { input_tokens: 1, output_tokens: 1 } },
    });
    acc.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "t", name: "echo", input: {} },
    });
    acc.push({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"text": "unterminated' },
    });
    acc.push({ type: "content_block_stop", index: 0 });
    acc.push({
      type: "message_delta",
      delta: { stop_reason: "max_tokens" },
      usage: { output_tokens: 5 },
    });
    acc.push({ type: "message_stop" });
    const { response, warnings } = fromAnthropicMessage(acc.finish());
    expect(response.toolCalls).toEqual([
      { id: "t", name: "echo", arguments: '{"text": "unterminated' },
    ]);
    expect(warnings).toContain(
      "anthropic: the reply was cut off at max_tokens (stop_reason: max_tokens)",
    );
  });

  it("unknown content blocks are reported, not silently dropped", () => {
    const { warnings } = fromAnthropicMessage({
      content: [
        { type: "text", text: "ok" },
        { type: "server_tool_use", id: "s" },
      ],
      usage: {},
    });
    expect(warnings[0]).toMatch(/server_tool_use/);
  });
});

describe("the loopback provider's streams of a body", () => {
  it.each([
    "openai/chat-text.json",
    "openai/chat-tool-calls-parallel.json",
    "openai/openrouter-fallback.json",
  ])("%s streamed accumulates to the same response", (file) => {
    const body = fixtureJson(file) as Record<string, unknown>;
    const acc = new OpenAIStreamAccumulator("openai");
    for (const chunk of dataOf(chatCompletionToSSE(body))) acc.push(chunk as OpenAIChunk);
    const { id: _id, ...streamed } =
      fromOpenAICompletion(acc.finish(), "openai").response.metadata ?? {};
    const json = fromOpenAICompletion(body, "openai").response;
    expect(fromOpenAICompletion(acc.finish(), "openai").response).toMatchObject({
      content: json.content,
      toolCalls: json.toolCalls,
      usage: json.usage,
      thinking: json.thinking,
    });
    expect(streamed).toMatchObject({ model: json.metadata?.["model"] });
  });

  it.each([
    "anthropic/message-text.json",
    "anthropic/message-tool-use-parallel.json",
    "anthropic/message-thinking-tool-use.json",
  ])("%s streamed accumulates to the same response", (file) => {
    const body = fixtureJson(file) as Record<string, unknown>;
    const acc = new AnthropicStreamAccumulator();
    for (const e of dataOf(anthropicMessageToSSE(body))) acc.push(e as AnthropicStreamEvent);
    const streamed = fromAnthropicMessage(acc.finish()).response;
    const json = fromAnthropicMessage(body).response;
    expect({ ...streamed, providerData: undefined }).toEqual({ ...json, providerData: undefined });
  });
});
