/**
 * One recorded trajectory as the messages a fine-tuning or eval pipeline reads (`spell loom
 * thread`): the cantrip's system prompt, then each cast's intent and the turns as the entity's
 * working context held them (the same rebuild as a fork, thread-context.ts).
 */
import { redactingReplacer } from "../../core/redact-stream.js";
import type { Message } from "../../core/contract.js";
import { Loom } from "../core/index.js";
import type { LoomReadStore } from "../stores/index.js";
import { forkPath, rebuildMessages } from "../records/index.js";
import type { LoomRecord } from "../records/index.js";

export const THREAD_FORMATS = ["text", "jsonl", "openai", "anthropic"] as const;
export type ThreadFormat = (typeof THREAD_FORMATS)[number];

export interface Trajectory {
  system: string | null;
  messages: Message[];
  /** The last turn's reward and its reason, when it has one. */
  reward: number | null;
  reason: string | undefined;
}

/**
 * What `trajectory` reads of the thread ending at `turnId`, from any store: its turns, their
 * cantrips' identities and their rewards with reasons, in a loom in memory (a database answers
 * the thread in one recursive query). Rejects with `loom_unknown_turn` for a turn not held.
 */
export async function threadLoom(store: LoomReadStore, turnId: string): Promise<Loom> {
  const turns = await store.readThread(turnId);
  const records: LoomRecord[] = [];
  for (const cantripId of new Set(turns.map((t) => t.cantrip_id))) {
    const node = await store.identity(cantripId);
    if (node) records.push({ ...node, type: "identity" });
  }
  for (const turn of turns) records.push({ ...turn, type: "turn" });
  records.push(...(await store.rewardRecords(turns.map((t) => t.id))));
  const loom = new Loom();
  loom.absorb(records);
  return loom;
}

/** The trajectory that ends at `turnId`: the context its entity saw, root to that turn. */
export function trajectory(loom: Loom, turnId: string): Trajectory {
  const path = forkPath(loom, turnId);
  const last = path[path.length - 1]!;
  const identity = loom.identity(path[0]!.cantrip_id);
  const prompt = identity?.identity["system_prompt"];
  const codeTool =
    identity && identity.medium !== "conversation"
      ? (identity.tools.find((t) => t !== "done") ?? identity.medium)
      : null;
  return {
    system: typeof prompt === "string" ? prompt : null,
    messages: rebuildMessages(path, codeTool),
    reward: last.reward,
    reason: loom.rewardReason(last.id),
  };
}

/** The trajectory in a format, as text ending in a newline; `redact` applies to every string. */
export function formatTrajectory(
  t: Trajectory,
  format: ThreadFormat,
  redact: (text: string) => string = (s) => s,
): string {
  const replacer = redactingReplacer(redact);
  const json = (value: unknown) => JSON.stringify(value, replacer);
  if (format === "openai") return `${json({ messages: openaiMessages(t) })}\n`;
  if (format === "anthropic") return `${json(anthropicDocument(t))}\n`;
  if (format === "jsonl")
    return openaiMessages(t)
      .map((m) => `${json(m)}\n`)
      .join("");
  return redact(transcript(t));
}

/** The OpenAI chat shape (fine-tuning JSONL's `messages`). */
function openaiMessages(t: Trajectory): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (t.system !== null) out.push({ role: "system", content: t.system });
  for (const m of t.messages) {
    if (m.role === "tool")
      out.push({ role: "tool", tool_call_id: m.toolCallId, content: m.content });
    else if (m.role === "assistant" && m.toolCalls?.length)
      out.push({
        role: "assistant",
        content: m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      });
    else out.push({ role: m.role, content: m.content });
  }
  return out;
}

type Block = Record<string, unknown>;

/** The Anthropic Messages shape: system apart, content blocks, user and assistant alternating. */
function anthropicDocument(t: Trajectory): {
  system?: string;
  messages: { role: string; content: Block[] }[];
} {
  const messages: { role: string; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    const prev = messages[messages.length - 1];
    if (prev?.role === role) prev.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of t.messages) {
    if (m.role === "system") continue;
    if (m.role === "tool")
      push("user", [
        {
          type: "tool_result",
          tool_use_id: m.toolCallId,
          content: m.content,
          ...(m.isError ? { is_error: true } : {}),
        },
      ]);
    else if (m.role === "user") push("user", [{ type: "text", text: m.content }]);
    else {
      const blocks: Block[] = m.content ? [{ type: "text", text: m.content }] : [];
      for (const c of m.toolCalls ?? [])
        blocks.push({ type: "tool_use", id: c.id, name: c.name, input: parsed(c.arguments) });
      push("assistant", blocks);
    }
  }
  return { ...(t.system !== null ? { system: t.system } : {}), messages };
}

function parsed(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return { arguments: args };
  }
}

/** A transcript a person reads: one paragraph per message, then the reward. */
function transcript(t: Trajectory): string {
  const lines: string[] = [];
  if (t.system !== null) lines.push(`system: ${t.system}`);
  for (const m of t.messages) {
    if (m.role === "tool") lines.push(`tool${m.isError ? " (error)" : ""}: ${m.content}`);
    else if (m.role === "assistant") {
      if (m.content) lines.push(`assistant: ${m.content}`);
      for (const c of m.toolCalls ?? []) lines.push(`assistant → ${c.name}(${c.arguments})`);
    } else lines.push(`${m.role}: ${m.content}`);
  }
  if (t.reward !== null)
    lines.push(`reward: ${t.reward}${t.reason === undefined ? "" : ` (${t.reason})`}`);
  return `${lines.join("\n")}\n`;
}
