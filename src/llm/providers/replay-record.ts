import type { LLMResponse } from "../../core/contract.js";

/** The turn-metadata key under which real providers record their reply exactly, for replay. */
export const REPLAY_KEY = "llm_response";

export interface RecordedReply {
  content: string | null;
  tool_calls: { id: string; name: string; arguments: string }[] | null;
  thinking?: string | null;
}

/** What a provider adapter adds to its response metadata so the turn can be replayed exactly. */
export function replayRecord(
  response: Pick<LLMResponse, "content" | "toolCalls" | "thinking">,
): Record<string, unknown> {
  const calls = response.toolCalls;
  let recorded: RecordedReply["tool_calls"] = null;
  if (calls) {
    recorded = [];
    for (const c of calls) recorded.push({ id: c.id, name: c.name, arguments: c.arguments });
  }
  // Built in its final shape, without spreads or a computed key: every reply of every turn.
  const reply: RecordedReply = { content: response.content, tool_calls: recorded };
  if (response.thinking) reply.thinking = response.thinking;
  return { llm_response: reply } satisfies Record<typeof REPLAY_KEY, RecordedReply>;
}
