/** The Anthropic Messages API wire format, as far as Spellbook reads and writes it. */

export interface CacheControl {
  type: "ephemeral";
}

export type AnthropicThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: CacheControl }
  | { type: "tool_use"; id: string; name: string; input: unknown; cache_control?: CacheControl }
  | {
      type: "tool_result";
      tool_use_id: string;
      content: string;
      is_error?: boolean;
      cache_control?: CacheControl;
    }
  | (AnthropicThinkingBlock & { cache_control?: never });

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: CacheControl;
}

export type AnthropicToolChoice = {
  type: "auto" | "any" | "none";
  disable_parallel_tool_use?: boolean;
};

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: { type: "text"; text: string; cache_control?: CacheControl }[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  stream?: boolean;
  [parameter: string]: unknown;
}

/** A Message body, read defensively. */
export interface AnthropicResponseBody {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    data?: string;
    id?: string;
    name?: string;
    input?: unknown;
  }[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  service_tier?: string | null;
}

/** One server-sent event of a streamed Message. */
export type AnthropicStreamEvent =
  | { type: "message_start"; message: AnthropicResponseBody }
  | {
      type: "content_block_start";
      index: number;
      content_block: NonNullable<AnthropicResponseBody["content"]>[number];
    }
  | {
      type: "content_block_delta";
      index: number;
      delta:
        | { type: "text_delta"; text: string }
        | { type: "thinking_delta"; thinking: string }
        | { type: "signature_delta"; signature: string }
        | { type: "input_json_delta"; partial_json: string }
        | { type: string; [key: string]: unknown };
    }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason?: string | null; stop_sequence?: string | null };
      usage?: AnthropicUsage;
    }
  | { type: "message_stop" }
  | { type: "ping" };
