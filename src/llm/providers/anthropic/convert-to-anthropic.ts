import type { Message, QueryOptions, ToolChoice, ToolDefinition } from "../../../core/contract.js";
import type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicThinkingBlock,
  AnthropicTool,
  AnthropicToolChoice,
} from "./wire.js";
import { isJsonObject } from "../../../core/json.js";
import { fitThinking, translateExtra } from "./anthropic-settings.js";

/** Where the signed thinking blocks of a reply travel in `providerData` (and back). */
export const THINKING_KEY = "anthropic_thinking";

/**
 * Our messages → `system` + alternating messages. Leading system messages become the system
 * prompt (Anthropic has no system role in `messages`); tool results become `tool_result`
 * blocks of one user message, ids and order untouched (LLM-7).
 */
export function toAnthropicMessages(messages: readonly Message[]): {
  system: string[];
  messages: AnthropicMessage[];
} {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  let leading = true;
  const push = (role: AnthropicMessage["role"], blocks: AnthropicBlock[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) {
      // One user message carries every tool result of a turn, results first (API rule).
      const results = [...last.content, ...blocks].filter((b) => b.type === "tool_result");
      const rest = [...last.content, ...blocks].filter((b) => b.type !== "tool_result");
      last.content = role === "user" ? [...results, ...rest] : [...last.content, ...blocks];
    } else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "system" && leading) {
      system.push(m.content);
      continue;
    }
    leading = false;
    switch (m.role) {
      case "system": // a system note later in the thread (e.g. a fold summary) stays in place
      case "user":
        push("user", m.content ? [{ type: "text", text: m.content }] : []);
        break;
      case "assistant": {
        const blocks: AnthropicBlock[] = [...thinkingBlocksOf(m.providerData)];
        if (m.content) blocks.push({ type: "text", text: m.content });
        for (const c of m.toolCalls ?? [])
          blocks.push({ type: "tool_use", id: c.id, name: c.name, input: toolInput(c.arguments) });
        push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: m.toolCallId,
            content: m.content,
            ...(m.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return { system, messages: out };
}

/** The inverse, for the loopback server's request log and the LLM-7 round-trip tests. */
export function fromAnthropicMessages(
  system: readonly string[],
  wire: readonly AnthropicMessage[],
): Message[] {
  const out: Message[] = system.map((content) => ({ role: "system", content }));
  for (const m of wire) {
    if (m.role === "assistant") {
      const text = m.content
        .filter((b) => b.type === "text")
        .map((b) => (b as { text: string }).text)
        .join("");
      const calls = m.content.filter((b) => b.type === "tool_use") as {
        id: string;
        name: string;
        input: unknown;
      }[];
      out.push({
        role: "assistant",
        content: text || null,
        ...(calls.length
          ? {
              toolCalls: calls.map((c) => ({
                id: c.id,
                name: c.name,
                arguments: JSON.stringify(c.input),
              })),
            }
          : {}),
      });
      continue;
    }
    for (const b of m.content) {
      if (b.type === "tool_result")
        out.push({
          role: "tool",
          toolCallId: b.tool_use_id,
          content: b.content,
          ...(b.is_error ? { isError: true } : {}),
        });
      else if (b.type === "text") out.push({ role: "user", content: b.text });
    }
  }
  return out;
}

function thinkingBlocksOf(data: Record<string, unknown> | undefined): AnthropicThinkingBlock[] {
  const blocks = data?.[THINKING_KEY];
  return Array.isArray(blocks) ? (blocks as AnthropicThinkingBlock[]) : [];
}

/** tool_use input must be an object; arguments that were not one are kept, not dropped. */
function toolInput(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args.trim() === "" ? "{}" : args);
    if (isJsonObject(value)) return value;
  } catch {
    // fall through
  }
  return { _raw_arguments: args };
}

export function toAnthropicTools(tools: readonly ToolDefinition[]): AnthropicTool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: "object", ...t.parameters },
  }));
}

export interface AnthropicRequestSettings {
  model: string;
  /** Mark the stable prefix (tools, system, history) for prompt caching. Default true. */
  cache?: boolean;
}

/**
 * The whole request and the warnings for settings Anthropic cannot honour as given. The
 * common OpenAI-style names are translated (stop, user, max_completion_tokens, parallel_tool_calls).
 */
export function buildAnthropicRequest(
  messages: readonly Message[],
  options: Pick<QueryOptions, "tools" | "toolChoice" | "extra">,
  settings: AnthropicRequestSettings,
): { body: AnthropicRequest; warnings: string[] } {
  const warnings: string[] = [];
  const { system, messages: wire } = toAnthropicMessages(messages);
  const { params, parallel } = translateExtra(options.extra ?? {}, warnings);
  const thinkingOn = fitThinking(params, warnings);
  const body: AnthropicRequest = {
    model: settings.model,
    ...params,
    max_tokens: params["max_tokens"] as number,
    messages: wire,
  };
  if (system.length) body.system = system.map((text) => ({ type: "text", text }));
  const tools = options.tools ?? [];
  if (tools.length) {
    body.tools = toAnthropicTools(tools);
    const choice = toAnthropicToolChoice(options.toolChoice ?? "auto", thinkingOn);
    if (choice.warning) warnings.push(choice.warning);
    body.tool_choice = parallel
      ? choice.value
      : { ...choice.value, disable_parallel_tool_use: true };
  } else if (!parallel) {
    warnings.push("anthropic: parallel_tool_calls has no effect without tools");
  }
  if (settings.cache !== false) markCacheBreakpoints(body);
  return { body, warnings };
}

/** LLM-5: "required" is native ("any") except with extended thinking, where it is simulated. */
export function toAnthropicToolChoice(
  choice: ToolChoice,
  thinking: boolean,
): { value: AnthropicToolChoice; warning?: string } {
  if (choice === "required") {
    if (!thinking) return { value: { type: "any" } };
    return {
      value: { type: "auto" },
      warning:
        "anthropic: forced tool use is not available with extended thinking; tool_choice required is simulated by re-prompting (LLM-5)",
    };
  }
  return { value: { type: choice } };
}

/**
 * Prompt caching: breakpoints after the tools+system prefix and after the newest message, so
 * each turn reads the previous turn's prefix from cache (reported as cached tokens, PROD-3).
 */
function markCacheBreakpoints(body: AnthropicRequest): void {
  const lastSystem = body.system?.[body.system.length - 1];
  if (lastSystem) lastSystem.cache_control = { type: "ephemeral" };
  else if (body.tools?.length)
    body.tools[body.tools.length - 1]!.cache_control = { type: "ephemeral" };
  const lastMessage = body.messages[body.messages.length - 1];
  const lastBlock = lastMessage?.content[lastMessage.content.length - 1];
  if (lastBlock && lastBlock.type !== "thinking" && lastBlock.type !== "redacted_thinking") {
    (lastBlock as { cache_control?: { type: "ephemeral" } }).cache_control = { type: "ephemeral" };
  }
}
