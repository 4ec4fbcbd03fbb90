import { randomUUID } from "node:crypto";
import type { LLMResponse, ToolCall } from "../../../core/contract.js";
import { ProviderError } from "../../errors.js";
import type { OpenAICompletionBody } from "./wire.js";

/**
 * A chat-completions body → the contract's response (LLM-6). Provider-only fields go to
 * metadata; nothing there is required by consumers. A body that is not a completion is a
 * `provider_bad_response` error, never a guessed answer.
 */
export function fromOpenAICompletion(
  raw: unknown,
  provider: string,
): { response: LLMResponse; warnings: string[] } {
  const body = asCompletion(raw, provider);
  const warnings: string[] = [];
  const choice = body.choices![0]!;
  const message = choice.message ?? {};
  if (body.choices!.length > 1)
    warnings.push(
      `${provider}: the reply had ${body.choices!.length} choices; only the first is used`,
    );

  let content = textOf(message.content);
  const metadata: Record<string, unknown> = {};
  if (!content && typeof message.refusal === "string" && message.refusal) {
    content = message.refusal; // the model's words, even when they are a refusal
    metadata["refusal"] = true;
  }
  const thinking = message.reasoning ?? message.reasoning_content ?? null;

  const { toolCalls, synthesized } = toolCallsOf(message.tool_calls ?? [], provider, warnings);
  if (synthesized) metadata["synthesized_tool_call_ids"] = synthesized;

  const usage = body.usage;
  if (!usage) warnings.push(`${provider}: the reply reported no token usage; counted as 0`);
  if (choice.finish_reason === "length")
    warnings.push(
      `${provider}: the reply was cut off at the output token limit (finish_reason: length)`,
    );
  putProviderMetadata(metadata, body, choice.finish_reason);

  // A reply that is a tool message is malformed; the loop rejects it (LLM-7), so keep it as such.
  const toolResults =
    message.role === "tool" && typeof message.tool_call_id === "string"
      ? [{ toolCallId: message.tool_call_id, content: content }]
      : undefined;
  return {
    response: {
      ...(toolResults ? { toolResults } : {}),
      content: toolResults ? null : content || null,
      toolCalls: toolCalls.length ? toolCalls : null,
      usage: {
        promptTokens: usage?.prompt_tokens ?? 0,
        completionTokens: usage?.completion_tokens ?? 0,
        cachedTokens:
          usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens ?? 0,
      },
      thinking: thinking || null,
      metadata,
    },
    warnings,
  };
}

type WireToolCall = NonNullable<
  NonNullable<NonNullable<OpenAICompletionBody["choices"]>[number]["message"]>["tool_calls"]
>[number];

/**
 * The reply's function calls → contract tool calls; calls of another type are reported and
 * left out. Missing ids are synthesized (and counted, for metadata).
 */
function toolCallsOf(
  calls: readonly WireToolCall[],
  provider: string,
  warnings: string[],
): { toolCalls: ToolCall[]; synthesized: number } {
  const toolCalls: ToolCall[] = [];
  let synthesized = 0;
  for (const call of calls) {
    if (call.type !== undefined && call.type !== "function") {
      warnings.push(
        `${provider}: a tool call of type ${JSON.stringify(call.type)} was ignored (only function calls are supported)`,
      );
      continue;
    }
    const args = call.function?.arguments;
    let id = call.id;
    if (!id) {
      // LLM-4: some OpenAI-compatible servers omit ids; the id only has to pair call and result.
      id = `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
      synthesized++;
    }
    toolCalls.push({
      id,
      name: call.function?.name ?? "",
      arguments:
        typeof args === "string" ? (args.trim() === "" ? "{}" : args) : JSON.stringify(args ?? {}),
    });
  }
  return { toolCalls, synthesized };
}

/** Provider-only facts of the reply (ids, model, fingerprints, cost) → metadata, when present. */
function putProviderMetadata(
  metadata: Record<string, unknown>,
  body: OpenAICompletionBody,
  finishReason: string | null | undefined,
): void {
  const usage = body.usage;
  put(metadata, "id", body.id);
  put(metadata, "model", body.model); // the model that actually answered (OpenRouter: after fallbacks)
  put(metadata, "finish_reason", finishReason);
  put(metadata, "system_fingerprint", body.system_fingerprint);
  put(metadata, "service_tier", body.service_tier);
  put(metadata, "upstream_provider", body.provider);
  put(metadata, "reasoning_tokens", usage?.completion_tokens_details?.reasoning_tokens);
  put(metadata, "cost", usage?.cost);
}

function asCompletion(raw: unknown, provider: string): OpenAICompletionBody {
  const bad = (why: string) =>
    new ProviderError(
      "provider_bad_response",
      `${provider}: the reply is not a chat completion (${why})`,
      { provider },
    );
  if (typeof raw === "string") throw bad(`got text: ${JSON.stringify(raw.slice(0, 120))}`);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw bad(`got ${raw === null ? "null" : typeof raw}`);
  const body = raw as OpenAICompletionBody;
  if (!Array.isArray(body.choices)) throw bad("no choices");
  if (body.choices.length === 0 || typeof body.choices[0] !== "object" || body.choices[0] === null)
    throw bad("empty choices");
  return body;
}

/** Content is a string, or (some servers) a list of text parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p: { type?: string; text?: string }) => (typeof p?.text === "string" ? p.text : ""))
      .join("");
  }
  return "";
}

function put(into: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined && value !== null) into[key] = value;
}
