import { ModelError } from "./errors.js";
import type { LLMResponse, Message } from "./contract.js";

/** Rejects responses the contract forbids: LLM-3 (empty), LLM-4 (ids), LLM-7 (stray tool results). */
export function validateResponse(response: LLMResponse, messages: readonly Message[]): void {
  const calls = response.toolCalls ?? [];
  if (response.toolResults?.length) {
    const known = knownToolCallIds(messages);
    for (const r of response.toolResults) {
      if (!known.has(r.toolCallId)) {
        throw new ModelError(
          "tool_result_unmatched",
          `tool result without matching tool call (tool_call_id ${JSON.stringify(r.toolCallId)})`,
        );
      }
    }
    throw new ModelError("tool_result_in_response", "llm returned a tool result message");
  }
  const hasContent = typeof response.content === "string" && response.content.length > 0;
  if (!hasContent && calls.length === 0) {
    throw new ModelError("empty_response", "llm returned neither content nor tool_calls");
  }
  const seen = calls.length > 1 ? new Set<string>() : null;
  for (const call of calls) {
    if (!call.id) throw new ModelError("tool_call_without_id", "tool call without an id");
    if (!call.name) throw new ModelError("tool_call_without_name", "tool call without a gate name");
    if (seen?.has(call.id)) {
      throw new ModelError(
        "duplicate_tool_call_id",
        `duplicate tool call ID ${JSON.stringify(call.id)}`,
      );
    }
    seen?.add(call.id);
  }
}

function knownToolCallIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) ids.add(c.id);
  }
  return ids;
}

/**
 * LLM-7 for adapters: a tool message must answer a call of the assistant message before it.
 * Adapters call this before converting messages to a provider's format.
 */
export function assertToolPairing(messages: readonly Message[]): void {
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") open = new Set((m.toolCalls ?? []).map((c) => c.id));
    else if (m.role === "tool") {
      if (!open.has(m.toolCallId)) {
        throw new ModelError(
          "tool_result_unmatched",
          `tool result without matching tool call (tool_call_id ${JSON.stringify(m.toolCallId)})`,
        );
      }
      open.delete(m.toolCallId);
    } else open = new Set();
  }
}
