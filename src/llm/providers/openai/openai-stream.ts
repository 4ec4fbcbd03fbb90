import { ProviderError } from "../../errors.js";
import type { OpenAIChunk, OpenAICompletionBody } from "./wire.js";

export interface Delta {
  type: "text" | "thinking";
  text: string;
}

interface ToolCallParts {
  id?: string;
  type?: string;
  name: string;
  arguments: string;
}

/**
 * Folds `chat.completion.chunk`s into the body a non-streaming request would have returned,
 * so one mapper serves both. Pure: chunks in, deltas out.
 */
export class OpenAIStreamAccumulator {
  private readonly head: Omit<OpenAICompletionBody, "choices" | "usage"> = {};
  private content = "";
  private refusal = "";
  /** A malformed stream may speak as another role (a tool message, LLM-7): kept, not guessed away. */
  private role = "assistant";
  private toolCallId: string | undefined;
  private reasoning = "";
  private readonly calls: ToolCallParts[] = [];
  private finishReason: string | null = null;
  private usage: OpenAICompletionBody["usage"] = undefined;
  private chunks = 0;

  /** `redact`: a quote of a bad chunk in an error goes through it before it is cut short. */
  constructor(
    private readonly provider: string,
    private readonly redact: (text: string) => string = (text) => text,
  ) {}

  /** Adds one chunk; returns the text and thinking it carried, for `onDelta`. */
  push(chunk: OpenAIChunk): Delta[] {
    this.chunks++;
    if (chunk === null || typeof chunk !== "object" || !Array.isArray(chunk.choices)) {
      throw new ProviderError(
        "provider_bad_response",
        `${this.provider}: the reply is not a chat completion (a stream event without choices: ${this.redact(JSON.stringify(chunk)).slice(0, 120)})`,
        { provider: this.provider },
      );
    }
    for (const key of [
      "id",
      "model",
      "created",
      "system_fingerprint",
      "service_tier",
      "provider",
    ] as const) {
      if (chunk[key] !== undefined && chunk[key] !== null)
        (this.head as Record<string, unknown>)[key] = chunk[key];
    }
    if (chunk.usage) this.usage = chunk.usage;
    const out: Delta[] = [];
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return out;
    const d = choice.delta ?? {};
    if (typeof d.role === "string" && d.role) this.role = d.role;
    if (typeof d.tool_call_id === "string") this.toolCallId = d.tool_call_id;
    const thinking = d.reasoning ?? d.reasoning_content;
    if (typeof thinking === "string" && thinking) {
      this.reasoning += thinking;
      out.push({ type: "thinking", text: thinking });
    }
    if (typeof d.content === "string" && d.content) {
      this.content += d.content;
      out.push({ type: "text", text: d.content });
    }
    if (typeof d.refusal === "string") this.refusal += d.refusal;
    for (const [position, part] of (d.tool_calls ?? []).entries()) {
      // Servers that send whole calls in one chunk leave out `index`; position stands in.
      const index = part.index ?? this.calls.length + position;
      const call = (this.calls[index] ??= { name: "", arguments: "" });
      if (part.id) call.id = part.id;
      if (part.type) call.type = part.type;
      if (part.function?.name) call.name += part.function.name;
      const args: unknown = part.function?.arguments;
      // Some servers send whole argument objects instead of JSON text.
      if (args !== undefined && args !== null)
        call.arguments += typeof args === "string" ? args : JSON.stringify(args);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return out;
  }

  /** The accumulated body. A stream that never said it finished was cut off: an error, not an answer. */
  finish(): OpenAICompletionBody {
    if (this.finishReason === null) {
      throw new ProviderError(
        "provider_stream_incomplete",
        `${this.provider}: the stream ended before the reply was complete (${this.chunks} chunks, no finish_reason)`,
        { provider: this.provider },
      );
    }
    const calls = this.calls.filter(Boolean);
    return {
      ...this.head,
      choices: [
        {
          index: 0,
          finish_reason: this.finishReason,
          message: {
            role: this.role,
            ...(this.toolCallId !== undefined ? { tool_call_id: this.toolCallId } : {}),
            content: this.content || null,
            ...(this.refusal ? { refusal: this.refusal } : {}),
            ...(this.reasoning ? { reasoning: this.reasoning } : {}),
            ...(calls.length
              ? {
                  tool_calls: calls.map((c) => ({
                    ...(c.id ? { id: c.id } : {}),
                    type: c.type ?? "function",
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
        },
      ],
      usage: this.usage ?? null,
    };
  }
}
