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
  const { content, thinking, signed, toolCalls, ignored } = readBlocks(
    body.content ?? [],
    provider,
  );
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

  const response: LLMResponse = {
    content: content || null,
    toolCalls: toolCalls.length ? toolCalls : null,
    usage: {
      promptTokens: (u.input_tokens ?? 0) + cacheRead + cacheWrite,
      completionTokens: u.output_tokens ?? 0,
      cachedTokens: cacheRead,
    },
    thinking: thinking.length ? thinking.join("\n\n") : null,
    metadata: metadataOf(body, cacheWrite),
  };
  if (signed.length) response.providerData = { [THINKING_KEY]: signed };
  return { response, warnings };
}

type Block = NonNullable<AnthropicResponseBody["content"]>[number];

interface ReadBlocks {
  content: string;
  thinking: string[];
  /** thinking blocks as signed by the API, to be sent back on the next turn */
  signed: AnthropicThinkingBlock[];
  toolCalls: ToolCall[];
  /** types of blocks the contract has no place for */
  ignored: Set<string>;
}

/** The reply's content blocks, each sorted into what it becomes in the contract. */
function readBlocks(blocks: readonly Block[], provider: string): ReadBlocks {
  const read: ReadBlocks = {
    content: "",
    thinking: [],
    signed: [],
    toolCalls: [],
    ignored: new Set(),
  };
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        read.content += block.text ?? "";
        break;
      case "thinking":
        read.thinking.push(block.thinking ?? "");
        read.signed.push({
          type: "thinking",
          thinking: block.thinking ?? "",
          signature: block.signature ?? "",
        });
        break;
      case "redacted_thinking":
        read.signed.push({ type: "redacted_thinking", data: block.data ?? "" });
        break;
      case "tool_use":
        read.toolCalls.push(toolCallOf(block, provider));
        break;
      default:
        read.ignored.add(String(block.type));
    }
  }
  return read;
}

function toolCallOf(block: Block, provider: string): ToolCall {
  return keepInput(
    {
      id: block.id ?? "",
      name: block.name ?? "",
      arguments: typeof block.input === "string" ? block.input : inputJson(block, provider),
    },
    block.input,
  );
}

/**
 * A tool_use input as JSON text. An input nested deeper than JSON.stringify can follow (the
 * parser that read it has no such limit) is the reply's fault: a coded error, not a RangeError.
 */
function inputJson(block: Block, provider: string): string {
  try {
    return JSON.stringify(block.input ?? {});
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new ProviderError(
      "provider_bad_response",
      `${provider}: the input of tool_use ${JSON.stringify(String(block.name ?? "").slice(0, 64))} is nested too deep to encode`,
      { provider },
    );
  }
}

/** Provider-only facts of the reply → metadata, when present. */
function metadataOf(body: AnthropicResponseBody, cacheWrite: number): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  put(metadata, "id", body.id);
  put(metadata, "model", body.model);
  put(metadata, "stop_reason", body.stop_reason);
  put(metadata, "stop_sequence", body.stop_sequence);
  if (cacheWrite) metadata["cache_creation_input_tokens"] = cacheWrite;
  put(metadata, "service_tier", body.usage?.service_tier);
  return metadata;
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
