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
  const reply: RecordedReply = {
    content: response.content,
    tool_calls:
      response.toolCalls?.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) ?? null,
    ...(response.thinking ? { thinking: response.thinking } : {}),
  };
  return { [REPLAY_KEY]: reply };
}
