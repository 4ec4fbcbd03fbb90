/**
 * The working context a recorded thread left behind, rebuilt from the loom: for a fork
 * (fork.ts, LOOM-4) and for an entity summoned again in another process (ENTITY-5, `resume`).
 * Each turn becomes its assistant message and observations again, each cast's intent comes
 * from the metadata of its first turn; the code medium's turns are handed over for a rebuild.
 */
import type { Message, ToolCall } from "../../core/contract.js";
import type { ResumePoint } from "../../core/loom-writer.js";
import type { RebuildTurn } from "../../core/medium.js";
import type { TurnMark } from "../../core/view.js";
import type { Turn } from "./turn.js";
import { cutOff, recordedCast } from "./recorded-cast.js";

/** What these functions read of a loom. */
export interface ThreadSource {
  thread(leafId: string): Turn[];
  /** The entity's last turn in append order, if it has one. */
  lastTurnOf(entityId: string): Turn | undefined;
}

/**
 * The recorded turns whose context N saw: N's entity's turns on the path root→N and, where that
 * entity was itself a fork, the thread it was forked from. A child of call_entity starts at its
 * own first turn (the parent's turns were never its context).
 */
export function forkPath(loom: Pick<ThreadSource, "thread">, turnId: string): Turn[] {
  const thread = loom.thread(turnId);
  const path: Turn[] = [];
  let entity = thread[thread.length - 1]!.entity_id;
  for (let i = thread.length - 1; i >= 0; i--) {
    const turn = thread[i]!;
    if (turn.entity_id !== entity) {
      const after = path[0];
      if (!after?.metadata["fork"]) break;
      entity = turn.entity_id;
    }
    path.unshift(turn);
  }
  return path;
}

/**
 * The working context after `turns`, as the entity's messages (after the cantrip's head). With
 * `marks`, where each turn begins is pushed there too (offset by `offset`, the head's length),
 * so a folding view can fold turns recorded before a fork or a resume.
 */
export function rebuildMessages(
  turns: readonly Turn[],
  codeTool: string | null,
  marks?: TurnMark[],
  offset = 0,
): Message[] {
  const messages: Message[] = [];
  for (const turn of turns) {
    const intent = turn.metadata["intent"];
    if (typeof intent === "string") messages.push({ role: "user", content: intent });
    if (cutOff(turn)) continue; // interrupted before the LLM answered: nothing was said
    marks?.push({ id: turn.id, sequence: turn.sequence, start: offset + messages.length });
    if (codeTool !== null) {
      const id = `call_${turn.id}`;
      const code: ToolCall = {
        id,
        name: codeTool,
        arguments: JSON.stringify({ code: turn.utterance }),
      };
      messages.push({ role: "assistant", content: null, toolCalls: [code] });
      messages.push({ role: "tool", toolCallId: id, content: turn.observation });
    } else if (turn.gate_calls.length) {
      const calls = turn.gate_calls.map((g, i) => ({
        id: `call_${turn.id}_${i}`,
        name: g.gate_name,
        arguments: g.arguments,
      }));
      messages.push({ role: "assistant", content: null, toolCalls: calls });
      turn.gate_calls.forEach((g, i) =>
        messages.push({
          role: "tool",
          toolCallId: calls[i]!.id,
          content: g.result,
          ...(g.is_error ? { isError: true } : {}),
        }),
      );
    } else {
      messages.push({ role: "assistant", content: turn.utterance });
      if (turn.observation) messages.push({ role: "user", content: turn.observation });
    }
  }
  return messages;
}

export const rebuildTurn = (t: Turn): RebuildTurn => ({
  id: t.id,
  sequence: t.sequence,
  utterance: t.utterance,
  gateCalls: t.gate_calls,
  observation: t.observation,
});

/**
 * Where an entity's thread ends and what it had in mind there (ENTITY-5 across processes): the
 * same rebuild as a fork from its last turn. Null when the loom has no turn of the entity.
 */
export function resumePoint(
  loom: ThreadSource,
  entityId: string,
  codeTool: string | null,
): ResumePoint | null {
  const last = loom.lastTurnOf(entityId);
  if (!last) return null;
  const path = forkPath(loom, last.id);
  const marks: TurnMark[] = [];
  return {
    messages: rebuildMessages(path, codeTool, marks),
    marks,
    rebuild: codeTool === null ? [] : path.filter((t) => !cutOff(t)).map(rebuildTurn),
    lastTurnId: last.id,
    sequence: last.sequence,
    cast: recordedCast(path, entityId),
  };
}
