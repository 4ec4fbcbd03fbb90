/**
 * The OpenAI chat-completions wire format, as far as Spellbook reads and writes it, including
 * the fields OpenAI-compatible servers add (OpenRouter's `reasoning`, `provider`, `models`;
 * DeepSeek/vLLM's `reasoning_content`). Our own types, so converters do not follow SDK churn.
 */

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface OpenAIRequest {
  model: string;
  messages: OpenAIMessage[];
  tools?: OpenAITool[];
  tool_choice?: "auto" | "required" | "none";
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  /** OpenRouter: models to fall back to, in order. */
  models?: string[];
  [hyperparameter: string]: unknown;
}

/** A response body, read defensively: servers differ, and some are wrong. */
/** The fields a full body and a streamed chunk share. */
export interface OpenAIResponseHead {
  id?: string;
  model?: string;
  created?: number;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  /** OpenRouter: the upstream provider that served the request. */
  provider?: string;
}

export interface OpenAICompletionBody extends OpenAIResponseHead {
  choices?: {
    index?: number;
    finish_reason?: string | null;
    message?: {
      role?: string;
      /** Only on a malformed reply that is a tool message (LLM-7). */
      tool_call_id?: string;
      content?: string | null | { type?: string; text?: string }[];
      refusal?: string | null;
      reasoning?: string | null;
      reasoning_content?: string | null;
      tool_calls?:
        | {
            id?: string;
            type?: string;
            function?: { name?: string; arguments?: string | Record<string, unknown> };
          }[]
        | null;
    };
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    total_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
    /** DeepSeek */
    prompt_cache_hit_tokens?: number;
    /** OpenRouter */
    cost?: number;
  } | null;
}

/** One streamed chunk (`chat.completion.chunk`). */
export interface OpenAIChunk extends OpenAIResponseHead {
  choices?: {
    index?: number;
    finish_reason?: string | null;
    delta?: {
      role?: string;
      tool_call_id?: string;
      content?: string | null;
      refusal?: string | null;
      reasoning?: string | null;
      reasoning_content?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        type?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
  }[];
  usage?: OpenAICompletionBody["usage"];
}
