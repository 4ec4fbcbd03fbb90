import { keepInput, type LLMResponse, type ToolCall } from "../../../core/contract.js";
import { ProviderError } from "../../errors.js";
import { THINKING_KEY } from "./convert-to-anthropic.js";
import type { AnthropicResponseBody, AnthropicThinkingBlock } from "./wire.js";

/**
 * A Message body → the contract's response (LLM-6): text blocks → content, thinking blocks →
 * thinking (and, signed, into providerData so they can be sent back), tool_use → tool calls,
 * cache reads → cachedTokens. Anthropic's input_tokens excludes cached tokens; promptTokens
 * counts them, as OpenAI's prompt_tokens does, so totals compare across providers.
 */
export function fromAnthropicMessage(
  raw: unknown,
  provider = "anthropic",
): { response: LLMResponse; warnings: string[] } {
  const body = asMessage(raw, provider);
  const warnings: string[] = [];
  let content = "";
  const thinking: string[] = [];
  const signed: AnthropicThinkingBlock[] = [];
  const toolCalls: ToolCall[] = [];
  const ignored = new Set<string>();
  for (const block of body.content ?? []) {
    switch (block.type) {
      case "text":
        content += block.text ?? "";
        break;
      case "thinking":
        thinking.push(block.thinking ?? "");
        signed.push({
          type: "thinking",
          thinking: block.thinking ?? "",
          signature: block.signature ?? "",
        });
        break;
      case "redacted_thinking":
        signed.push({ type: "redacted_thinking", data: block.data ?? "" });
        break;
      case "tool_use":
        toolCalls.push(
          keepInput(
            {
              id: block.id ?? "",
              name: block.name ?? "",
              arguments:
                typeof block.input === "string" ? block.input : JSON.stringify(block.input ?? {}),
            },
            block.input,
          ),
        );
        break;
      default:
        ignored.add(String(block.type));
    }
  }
  if (ignored.size)
    warnings.push(
      `${provider}: content blocks of type ${[...ignored].join(", ")} are not part of the contract and were left out`,
    );
  if (body.stop_reason === "max_tokens")
    warnings.push(`${provider}: the reply was cut off at max_tokens (stop_reason: max_tokens)`);

  const u = body.usage ?? {};
  if (!body.usage) warnings.push(`${provider}: the reply reported no token usage; counted as 0`);
  const cacheRead = u.cache_read_input_tokens ?? 0;
  const cacheWrite = u.cache_creation_input_tokens ?? 0;
  const metadata: Record<string, unknown> = {};
  put(metadata, "id", body.id);
  put(metadata, "model", body.model);
  put(metadata, "stop_reason", body.stop_reason);
  put(metadata, "stop_sequence", body.stop_sequence);
  if (cacheWrite) metadata["cache_creation_input_tokens"] = cacheWrite;
  put(metadata, "service_tier", u.service_tier);

  const response: LLMResponse = {
    content: content || null,
    toolCalls: toolCalls.length ? toolCalls : null,
    usage: {
      promptTokens: (u.input_tokens ?? 0) + cacheRead + cacheWrite,
      completionTokens: u.output_tokens ?? 0,
      cachedTokens: cacheRead,
    },
    thinking: thinking.length ? thinking.join("\n\n") : null,
    metadata,
  };
  if (signed.length) response.providerData = { [THINKING_KEY]: signed };
  return { response, warnings };
}

function asMessage(raw: unknown, provider: string): AnthropicResponseBody {
  const bad = (why: string) =>
    new ProviderError("provider_bad_response", `${provider}: the reply is not a message (${why})`, {
      provider,
    });
  if (typeof raw === "string") throw bad(`got text: ${JSON.stringify(raw.slice(0, 120))}`);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw bad(`got ${raw === null ? "null" : typeof raw}`);
  const body = raw as AnthropicResponseBody;
  if (!Array.isArray(body.content)) throw bad("no content list");
  return body;
}

function put(into: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined && value !== null) into[key] = value;
}
