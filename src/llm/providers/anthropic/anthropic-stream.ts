import { ProviderError } from "../../errors.js";
import type { Delta } from "../openai/openai-stream.js";
import type { AnthropicResponseBody, AnthropicStreamEvent, AnthropicUsage } from "./wire.js";

type Block = NonNullable<AnthropicResponseBody["content"]>[number] & { partial_json?: string };

/**
 * Folds Messages stream events into the body a non-streaming request returns, so one mapper
 * serves both. Pure: events in, text/thinking deltas out.
 */
export class AnthropicStreamAccumulator {
  private message: AnthropicResponseBody | null = null;
  private readonly blocks: Block[] = [];
  private usage: AnthropicUsage = {};
  private stopped = false;

  constructor(private readonly provider = "anthropic") {}

  push(event: AnthropicStreamEvent): Delta[] {
    switch (event.type) {
      case "message_start":
        this.message = { ...event.message, content: [] };
        this.usage = { ...event.message.usage };
        return [];
      case "content_block_start":
        this.blocks[event.index] = { ...event.content_block };
        if (this.blocks[event.index]!.type === "tool_use")
          this.blocks[event.index]!.partial_json = "";
        return [];
      case "content_block_delta":
        return this.delta(event.index, event.delta);
      case "content_block_stop": {
        const block = this.blocks[event.index];
        if (block?.type === "tool_use" && block.partial_json !== undefined) {
          // The input arrives as JSON text; it stays text when it does not parse (the gate reports it).
          const text = block.partial_json;
          delete block.partial_json;
          block.input = parseOr(text === "" ? "{}" : text);
        }
        return [];
      }
      case "message_delta":
        if (this.message) {
          if (event.delta.stop_reason !== undefined)
            this.message.stop_reason = event.delta.stop_reason;
          if (event.delta.stop_sequence !== undefined)
            this.message.stop_sequence = event.delta.stop_sequence;
        }
        // message_delta usage is cumulative; fields it leaves out keep message_start's values.
        for (const [k, v] of Object.entries(event.usage ?? {}))
          if (v !== null && v !== undefined) (this.usage as Record<string, unknown>)[k] = v;
        return [];
      case "message_stop":
        this.stopped = true;
        return [];
      default:
        return [];
    }
  }

  private delta(index: number, delta: { type: string; [k: string]: unknown }): Delta[] {
    const block = this.blocks[index];
    if (!block) return [];
    switch (delta.type) {
      case "text_delta":
        block.text = (block.text ?? "") + String(delta["text"]);
        return [{ type: "text", text: String(delta["text"]) }];
      case "thinking_delta":
        block.thinking = (block.thinking ?? "") + String(delta["thinking"]);
        return [{ type: "thinking", text: String(delta["thinking"]) }];
      case "signature_delta":
        block.signature = String(delta["signature"]);
        return [];
      case "input_json_delta":
        block.partial_json = (block.partial_json ?? "") + String(delta["partial_json"]);
        return [];
      default:
        return [];
    }
  }

  /** The accumulated Message. A stream without message_stop was cut off: an error, not an answer. */
  finish(): AnthropicResponseBody {
    if (!this.message || !this.stopped) {
      throw new ProviderError(
        "provider_stream_incomplete",
        `${this.provider}: the stream ended before the message was complete (no message_stop)`,
        { provider: this.provider },
      );
    }
    return { ...this.message, content: this.blocks.filter(Boolean), usage: this.usage };
  }
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
