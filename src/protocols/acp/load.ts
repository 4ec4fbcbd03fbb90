/**
 * `session/load` sends the conversation's history to the client as `session/update` notifications (the
 * ACP way to show an editor a session it reopened): each intent as the user's message, the
 * entity's words as the agent's (or as thoughts, where they are code or commands), each gate
 * call as a completed tool call. Read from the loom, so any process that shares it can answer.
 */
import type { Turn } from "../../loom/records/index.js";
import type { AcpSession } from "./sessions.js";
import type { SessionUpdate } from "./updates.js";

const text = (t: string) => ({ type: "text", text: t });

export function historyUpdates(
  session: AcpSession,
  redact: (t: string) => string,
): SessionUpdate[] {
  const turns = session.cantrip.loom.turns().filter((t) => t.entity_id === session.entity.id);
  const spoken = session.cantrip.circle.mediumName === "conversation";
  return turns.flatMap((t, i) => turnUpdates(t, i, spoken, redact));
}

function turnUpdates(
  turn: Turn,
  index: number,
  spoken: boolean,
  redact: (t: string) => string,
): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  const intent = turn.metadata["intent"];
  if (typeof intent === "string")
    out.push({ sessionUpdate: "user_message_chunk", content: text(redact(intent)) });
  if (turn.utterance)
    out.push({
      sessionUpdate: spoken ? "agent_message_chunk" : "agent_thought_chunk",
      content: text(redact(turn.utterance)),
    });
  turn.gate_calls.forEach((g, j) => {
    const toolCallId = `load_${index + 1}_${j + 1}`;
    out.push({
      sessionUpdate: "tool_call",
      toolCallId,
      title: g.gate_name,
      kind: "other",
      status: g.is_error ? "failed" : "completed",
      content: [{ type: "content", content: text(redact(g.result)) }],
    });
  });
  return out;
}
