/**
 * `provider: mock_openai` with `responses:` — the suite's usual scripted replies written as the
 * OpenAI chat-completions bodies a server would send, so that they go through the real adapter's
 * converters (the mock never hands the loop a ready-made response).
 */
import { ConfigError } from "../core/errors.js";
import type { LoopbackReply } from "../llm/loopback/server.js";

const REPLY_KEYS = new Set(["content", "tool_calls", "tool_result", "error", "usage", "thinking"]);

type Obj = Record<string, unknown>;

/** One scripted reply → the wire reply: a completion body, or an error status with an error body. */
export function wireReplyOf(
  key: string,
  raw: unknown,
  i: number,
  defaultUsage?: unknown,
): LoopbackReply {
  const where = `${key}.responses[${i}]`;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new ConfigError(
      "unsupported_setup",
      `${where} must be a reply, got ${JSON.stringify(raw)}`,
    );
  const r = raw as Obj;
  for (const k of Object.keys(r)) {
    if (!REPLY_KEYS.has(k))
      throw new ConfigError(
        "unsupported_setup",
        `unsupported setup key: ${where}.${k} (a mock_openai reply has ${[...REPLY_KEYS].join(", ")})`,
      );
  }
  if (r["error"] !== undefined) {
    const e = (r["error"] ?? {}) as { status?: number; message?: string };
    const status = e.status ?? 500;
    return {
      status,
      body: { error: { message: e.message ?? `mock error ${status}`, type: "mock" } },
    };
  }
  return { body: completion({ usage: defaultUsage, ...r }, i) };
}

function completion(r: Obj, i: number): Obj {
  const usage = (r["usage"] ?? {}) as Obj;
  const prompt = typeof usage["prompt_tokens"] === "number" ? usage["prompt_tokens"] : 0;
  const completionTokens =
    typeof usage["completion_tokens"] === "number" ? usage["completion_tokens"] : 0;
  return {
    id: `chatcmpl-mock-${i + 1}`,
    object: "chat.completion",
    model: "mock-model",
    choices: [{ index: 0, finish_reason: finishReason(r), message: message(r, i) }],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completionTokens,
      total_tokens: prompt + completionTokens,
      ...(typeof usage["cached_tokens"] === "number"
        ? { prompt_tokens_details: { cached_tokens: usage["cached_tokens"] } }
        : {}),
    },
  };
}

function finishReason(r: Obj): string {
  return Array.isArray(r["tool_calls"]) && r["tool_calls"].length ? "tool_calls" : "stop";
}

function message(r: Obj, i: number): Obj {
  const result = r["tool_result"] as { tool_call_id?: unknown; content?: unknown } | undefined;
  if (result !== undefined) {
    // A malformed provider message: a tool result where the model's reply belongs (LLM-7).
    return {
      role: "tool",
      tool_call_id: text(result?.tool_call_id),
      content: text(result?.content),
    };
  }
  const calls = Array.isArray(r["tool_calls"]) ? (r["tool_calls"] as Obj[]) : [];
  return {
    role: "assistant",
    content: typeof r["content"] === "string" ? r["content"] : null,
    ...(typeof r["thinking"] === "string" ? { reasoning: r["thinking"] } : {}),
    ...(calls.length
      ? {
          tool_calls: calls.map((c, j) => ({
            id: typeof c["id"] === "string" ? c["id"] : `call_${i + 1}_${j + 1}`,
            type: "function",
            function: { name: text(c["gate"]), arguments: JSON.stringify(c["args"] ?? {}) },
          })),
        }
      : {}),
  };
}

const text = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);
