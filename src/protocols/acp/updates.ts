/**
 * Engine events → ACP `session/update` payloads (PROD-6). The entity's text is the agent's
 * message (in the conversation medium; in the code and bash mediums the text is code or a
 * command, so it is a thought), thinking is a thought, each gate call is a `tool_call` that a
 * `tool_call_update` completes or fails with its result, and each query's usage is a
 * `usage_update`. Events of children (entities the session's entity spawned) are thoughts and
 * tool calls too. The caller passes events through the redacting listener first (PROD-8).
 */
import type { CantripEvent } from "../../core/events.js";
import type { GateCallRecord } from "../../core/medium.js";
import type { CastResult } from "../../core/result.js";

/** A `session/update` payload: the ACP schema's `SessionUpdate`, as plain JSON. */
export type SessionUpdate = { sessionUpdate: string } & Record<string, unknown>;

/** What ACP calls the kind of a tool: how an editor shows the call. */
const TOOL_KINDS: Record<string, string> = {
  read: "read",
  read_ephemeral: "read",
  list_dir: "read",
  search: "search",
  write: "edit",
  fetch: "fetch",
  call_entity: "think",
  call_entity_batch: "think",
};

const text = (t: string) => ({ type: "text", text: t });

function parseArgs(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

export interface UpdateMapper {
  /** The updates one event makes (often none). */
  map(event: CantripEvent): SessionUpdate[];
  /** The closing message of a prompt: a `done` result, which no text chunk carried. */
  finish(result: CastResult): SessionUpdate[];
}

/**
 * One mapper per prompt. `rootId` is the session's entity (its text is the message);
 * `contextWindow`, when the spell names one, is the size `usage_update` reports against.
 */
export function updateMapper(opts: {
  rootId: string;
  medium: string;
  contextWindow: number | undefined;
}): UpdateMapper {
  const calls = toolCalls();
  const spoken = (entityId: string) => entityId === opts.rootId && opts.medium === "conversation";
  const map = (e: CantripEvent): SessionUpdate[] => {
    switch (e.type) {
      case "text":
        return [
          {
            sessionUpdate: spoken(e.entityId) ? "agent_message_chunk" : "agent_thought_chunk",
            content: text(e.text),
          },
        ];
      case "thinking":
        return [{ sessionUpdate: "agent_thought_chunk", content: text(e.text) }];
      case "tool_call":
        return [calls.begin(e.entityId, e.gate, e.arguments)];
      case "tool_result":
        return [calls.end(e.entityId, e.record)];
      case "usage":
        return usageUpdate(e.usage, opts.contextWindow);
      default:
        return [];
    }
  };
  return {
    map,
    finish(result) {
      // A text reply was the message already; a `done` answer was a gate call, not text.
      if (result.status !== "terminated" || result.reason !== "done") return [];
      const answer =
        typeof result.result === "string" ? result.result : JSON.stringify(result.result);
      return answer ? [{ sessionUpdate: "agent_message_chunk", content: text(answer) }] : [];
    },
  };
}

/** Tool call ids: a gate's result comes after its call, in order per entity and gate. */
function toolCalls() {
  let count = 0;
  const open = new Map<string, string[]>();
  const key = (entityId: string, gate: string) => `${entityId}\u0000${gate}`;
  return {
    begin(entityId: string, gate: string, args: string): SessionUpdate {
      const toolCallId = `call_${++count}`;
      const k = key(entityId, gate);
      open.set(k, [...(open.get(k) ?? []), toolCallId]);
      return {
        sessionUpdate: "tool_call",
        toolCallId,
        title: gate,
        kind: TOOL_KINDS[gate] ?? "other",
        status: "in_progress",
        rawInput: parseArgs(args),
      };
    },
    end(entityId: string, record: GateCallRecord): SessionUpdate {
      const k = key(entityId, record.gate_name);
      const [toolCallId, ...rest] = open.get(k) ?? [`call_${++count}`];
      open.set(k, rest);
      return {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: record.is_error ? "failed" : "completed",
        content: [{ type: "content", content: text(record.result) }],
        rawOutput: { result: record.result, is_error: record.is_error },
      };
    },
  };
}

function usageUpdate(
  usage: { promptTokens: number; completionTokens: number; cachedTokens: number },
  contextWindow: number | undefined,
): SessionUpdate[] {
  const used = usage.promptTokens + usage.completionTokens;
  // ACP's usage_update needs the window's size; without one the usage goes in the prompt's _meta.
  if (contextWindow === undefined) return [];
  return [{ sessionUpdate: "usage_update", used, size: contextWindow }];
}
