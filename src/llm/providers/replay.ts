import { isAbsolute, resolve } from "node:path";
import { ConfigError } from "../../core/errors.js";
import type { Turn } from "../../loom/turn.js";
import { readLoomFile } from "../../loom/storage-jsonl.js";
import type { LLM, LLMResponse, Message, QueryOptions, ToolCall } from "../../core/contract.js";
import { REPLAY_KEY, type RecordedReply } from "./replay-record.js";

export { REPLAY_KEY, replayRecord, type RecordedReply } from "./replay-record.js";

/**
 * The LLM side of a recorded thread, turn by turn. Turns recorded by a real provider carry
 * their reply exactly (`metadata.llm_response`); older or scripted turns are rebuilt from the
 * utterance and gate calls (tool-call ids are then new, which the run does not notice).
 */
export function repliesOfThread(turns: readonly Turn[]): LLMResponse[] {
  const out: LLMResponse[] = [];
  let n = 0;
  for (const turn of turns) {
    const recorded = turn.metadata[REPLAY_KEY] as RecordedReply | undefined;
    const usage = {
      promptTokens: turn.metadata.tokens_prompt ?? 0,
      completionTokens: turn.metadata.tokens_completion ?? 0,
      cachedTokens: turn.metadata.tokens_cached ?? 0,
    };
    if (recorded) {
      out.push({
        content: recorded.content,
        toolCalls: recorded.tool_calls?.map((c) => ({ ...c })) ?? null,
        thinking: recorded.thinking ?? null,
        usage,
        metadata: { replayed_turn: turn.id },
      });
      continue;
    }
    if (turn.utterance === "" && turn.gate_calls.length === 0) continue; // a query cut off by a ward: no reply
    const calls: ToolCall[] = turn.gate_calls.map((g) => ({
      id: `call_replay_${++n}`,
      name: g.gate_name,
      arguments: g.arguments,
    }));
    const rendered = turn.gate_calls.map((g) => `${g.gate_name}(${g.arguments})`).join("\n");
    out.push({
      content: calls.length && turn.utterance === rendered ? null : turn.utterance,
      toolCalls: calls.length ? calls : null,
      thinking: null,
      usage,
      metadata: { replayed_turn: turn.id },
    });
  }
  return out;
}

/** Picks a thread of a loom file: the one ending at `leaf` (any turn id), else the last turn written. */
export function readRecordedThread(file: string, leaf?: string): Turn[] {
  const records = readLoomFile(file).records;
  const turns = new Map<string, Turn>();
  let last: Turn | undefined;
  for (const r of records) {
    if (r.type !== "turn") continue;
    const { type: _type, ...turn } = r;
    turns.set(turn.id, turn);
    last = turn;
  }
  const end = leaf === undefined ? last : turns.get(leaf);
  if (!end) {
    throw new ConfigError(
      "replay_thread_missing",
      leaf === undefined
        ? `${file} holds no turns to replay`
        : `${file} has no turn ${JSON.stringify(leaf)}`,
    );
  }
  const path: Turn[] = [];
  for (let t: Turn | undefined = end; t; t = t.parent_id ? turns.get(t.parent_id) : undefined)
    path.push(t);
  // Only the entity that made the leaf: its parent's turns (a fork's history) are not its replies.
  return path.reverse().filter((t) => t.entity_id === end.entity_id);
}

/**
 * Plays back the recorded replies in order (offline, no key). A run that asks for more replies
 * than were recorded has diverged from the recording: that is an error, never an invented reply.
 */
export class ReplayLLM implements LLM {
  readonly name: string;
  private next = 0;

  constructor(
    private readonly replies: readonly LLMResponse[],
    readonly source: string,
  ) {
    this.name = `replay/${source}`;
  }

  get queries(): number {
    return this.next;
  }

  unused(): number {
    return this.replies.length - this.next;
  }

  query(_messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    const reply = this.replies[this.next];
    if (!reply) {
      return Promise.reject(
        new ConfigError(
          "replay_exhausted",
          `replay of ${this.source}: the recording has ${this.replies.length} replies and the run asked for reply ${this.next + 1}; the run diverged from the recording`,
        ),
      );
    }
    this.next++;
    const copy: LLMResponse = {
      ...reply,
      toolCalls: reply.toolCalls?.map((c) => ({ ...c })) ?? null,
      usage: { ...reply.usage },
    };
    if (options.onDelta) {
      if (copy.thinking) options.onDelta({ type: "thinking", text: copy.thinking });
      if (copy.content) options.onDelta({ type: "text", text: copy.content });
    }
    return Promise.resolve(copy);
  }
}

export function createReplay(
  spec: { loom?: unknown; thread?: unknown },
  baseDir: string,
): ReplayLLM {
  if (typeof spec.loom !== "string" || spec.loom === "") {
    throw new ConfigError(
      "replay_loom_missing",
      "the replay provider needs the recorded loom: llm: { provider: replay, loom: path/to/loom.jsonl }",
    );
  }
  const file = isAbsolute(spec.loom) ? spec.loom : resolve(baseDir, spec.loom);
  let thread: Turn[];
  try {
    thread = readRecordedThread(file, typeof spec.thread === "string" ? spec.thread : undefined);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(
      "replay_loom_unreadable",
      `cannot read the recorded loom ${file}: ${(err as Error).message}`,
    );
  }
  return new ReplayLLM(repliesOfThread(thread), spec.loom);
}
