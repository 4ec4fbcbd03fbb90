import type { Message, QueryOptions, ToolChoice, ToolDefinition } from "../../../core/contract.js";
import type { OpenAIMessage, OpenAIRequest, OpenAITool } from "./wire.js";

/** Which OpenAI-compatible service a request goes to: a few parameters differ. */
export type OpenAIFlavor = "openai" | "openrouter" | "google" | "local";

export interface OpenAIRequestSettings {
  flavor: OpenAIFlavor;
  model: string;
  /** OpenRouter's fallback list. */
  models?: readonly string[] | undefined;
}

/**
 * Our messages → chat-completions messages. Ids and order pass through untouched (LLM-7);
 * pairing is checked by the caller (assertToolPairing) before this runs.
 */
export function toOpenAIMessages(messages: readonly Message[]): OpenAIMessage[] {
  return messages.map((m): OpenAIMessage => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant": {
        const calls = m.toolCalls ?? [];
        if (calls.length === 0) return { role: "assistant", content: m.content ?? "" };
        return {
          role: "assistant",
          content: m.content === "" ? null : m.content,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          })),
        };
      }
      case "tool":
        // The wire format has no error flag: say it in the text, as Anthropic's is_error would.
        return {
          role: "tool",
          tool_call_id: m.toolCallId,
          content: m.isError && !/^error\b/i.test(m.content) ? `Error: ${m.content}` : m.content,
        };
    }
  });
}

/** The inverse, for the loopback server's request log (and the round-trip tests of LLM-7). */
export function fromOpenAIMessages(wire: readonly OpenAIMessage[]): Message[] {
  return wire.map((m): Message => {
    switch (m.role) {
      case "system":
      case "developer":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content };
      case "assistant":
        return {
          role: "assistant",
          content: m.content,
          ...(m.tool_calls?.length
            ? {
                toolCalls: m.tool_calls.map((c) => ({
                  id: c.id,
                  name: c.function.name,
                  arguments: c.function.arguments,
                })),
              }
            : {}),
        };
      case "tool":
        return { role: "tool", toolCallId: m.tool_call_id, content: m.content };
    }
  });
}

export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAITool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** Parameters Spellbook sets itself; an identity that names them is told so. */
const OWNED = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "stream",
  "stream_options",
  "functions",
  "function_call",
]);

/**
 * The whole request body, and the warnings for settings that could not be honoured as given
 * (never a silent drop). Hyperparameters and provider-specific `extra` pass through.
 */
export function buildOpenAIRequest(
  messages: readonly Message[],
  options: Pick<QueryOptions, "tools" | "toolChoice" | "extra">,
  settings: OpenAIRequestSettings,
): { body: OpenAIRequest; warnings: string[] } {
  const warnings: string[] = [];
  const body: OpenAIRequest = { model: settings.model, messages: toOpenAIMessages(messages) };
  const tools = options.tools ?? [];
  if (tools.length) {
    body.tools = toOpenAITools(tools);
    body.tool_choice = toOpenAIToolChoice(options.toolChoice ?? "auto");
  }
  if (settings.flavor === "openrouter" && settings.models?.length)
    body.models = [...settings.models];
  for (const [key, value] of Object.entries(options.extra ?? {})) {
    if (value === undefined || value === null) continue;
    if (OWNED.has(key)) {
      warnings.push(
        `${settings.flavor}: the identity sets "${key}", which Spellbook controls; it was not sent`,
      );
      continue;
    }
    if (key === "n" && value !== 1) {
      warnings.push(
        `${settings.flavor}: n=${JSON.stringify(value)} is not supported (one reply per query); it was not sent`,
      );
      continue;
    }
    if (key === "max_tokens" && settings.flavor === "openai") {
      // OpenAI replaced max_tokens with max_completion_tokens; reasoning models reject the old name.
      if (body["max_completion_tokens"] === undefined) body["max_completion_tokens"] = value;
      continue;
    }
    body[key] = value;
  }
  return { body, warnings };
}

export function toOpenAIToolChoice(choice: ToolChoice): "auto" | "required" | "none" {
  return choice;
}
