import { isAbsolute, resolve } from "node:path";
import { ConfigError, unreadableBecause } from "../../core/errors.js";
import type { LLM, LLMResponse, Message, QueryOptions } from "../../core/contract.js";
import { replayRecord } from "./replay-record.js";
import { readRecordedTree, type RecordedEntity, type RecordedTree } from "./replay-tree.js";

export { REPLAY_KEY, replayRecord, type RecordedReply } from "./replay-record.js";
export {
  readRecordedThread,
  readRecordedTree,
  repliesOfThread,
  type RecordedEntity,
  type RecordedTree,
} from "./replay-tree.js";

/** Where a replayed reply says which recorded entity it came from (the next query carries it back). */
const MARK = "replay_entity";

interface Cursor {
  entity: RecordedEntity;
  next: number;
}

/**
 * Plays back a recorded run (offline, no key): the root's replies, and — when this one LLM is
 * given to every entity of the run — each child's own. Each reply marks its assistant message
 * with the recorded entity it belongs to, so the entity's next query finds its place; an
 * entity's first query is bound to the next recorded entity spawned from the turn its parent is
 * in (the one whose intent the query names, in the order they were made). A run that asks for
 * more than was recorded has diverged: that is an error, never an invented reply.
 */
export class ReplayLLM implements LLM {
  readonly name: string;
  /** Its query answers at once (a script or a recording), so it never holds a stopped cast. */
  readonly honoursSignal = true;
  private readonly tree: RecordedTree;
  private readonly cursors = new Map<string, Cursor>();
  private served = 0;
  /** The first way the run left the recording (a query past it, a child it does not have). */
  divergence: string | undefined;
  private folds = 0;

  constructor(
    recording: readonly LLMResponse[] | RecordedTree,
    readonly source: string,
  ) {
    this.name = `replay/${source}`;
    this.tree = Array.isArray(recording)
      ? { root: rootOf(recording as readonly LLMResponse[]), descendants: [], foldSummaries: [] }
      : (recording as RecordedTree);
  }

  get queries(): number {
    return this.served;
  }

  /** Replies recorded and never asked for, over every entity (and LLM fold summaries). */
  unused(): number {
    const all = [this.tree.root, ...this.tree.descendants];
    const recorded = all.reduce((n, e) => n + e.replies.length, 0);
    return recorded - this.served + (this.tree.foldSummaries.length - this.folds);
  }

  // async: a divergence (thrown below) is a rejected query, as a provider's failure would be.
  // eslint-disable-next-line @typescript-eslint/require-await
  async query(messages: readonly Message[], options: QueryOptions = {}): Promise<LLMResponse> {
    // A query without tools is a fold's summary (strategy llm) while the recording has one left.
    const fold = !options.tools && this.folds < this.tree.foldSummaries.length;
    let reply: LLMResponse;
    try {
      reply = fold ? this.foldSummary() : this.reply(messages);
    } catch (err) {
      // A child's divergence comes back to its parent as a failed child: keep the cause.
      this.divergence ??= (err as Error).message;
      throw err;
    }
    if (options.onDelta) {
      if (reply.thinking) options.onDelta({ type: "thinking", text: reply.thinking });
      if (reply.content) options.onDelta({ type: "text", text: reply.content });
    }
    return reply;
  }

  private reply(messages: readonly Message[]): LLMResponse {
    const cursor = this.cursorOf(messages);
    const reply = cursor.entity.replies[cursor.next];
    if (!reply) {
      const whose = cursor.entity === this.tree.root ? "" : ` of child ${cursor.entity.id}`;
      throw new ConfigError(
        "replay_exhausted",
        `replay of ${this.source}: the recording has ${cursor.entity.replies.length} replies${whose} and the run asked for reply ${cursor.next + 1}; the run diverged from the recording`,
      );
    }
    cursor.next++;
    this.served++;
    const copy: LLMResponse = {
      ...reply,
      toolCalls: reply.toolCalls?.map((c) => ({ ...c })) ?? null,
      usage: { ...reply.usage },
      providerData: { ...reply.providerData, [MARK]: cursor.entity.id },
    };
    copy.metadata = { ...reply.metadata, ...replayRecord(copy) };
    return copy;
  }

  /** The entity asking: the mark on its last reply, else a new one bound to the recording. */
  private cursorOf(messages: readonly Message[]): Cursor {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      const mark = m.role === "assistant" ? m.providerData?.[MARK] : undefined;
      const cursor = typeof mark === "string" ? this.cursors.get(mark) : undefined;
      if (cursor) return cursor;
    }
    // A recording of one entity is played in order to whoever asks (a council's seats, a
    // spell's own `provider: replay`): only a tree with children binds new entities.
    const first = this.cursors.size === 0 || this.tree.descendants.length === 0;
    if (first && this.cursors.has(this.tree.root.id)) return this.cursors.get(this.tree.root.id)!;
    const entity = first ? this.tree.root : this.spawned(messages);
    const cursor = { entity, next: 0 };
    this.cursors.set(entity.id, cursor);
    return cursor;
  }

  /** A child's first query: the next unbound recorded child of a turn some bound entity is in. */
  private spawned(messages: readonly Message[]): RecordedEntity {
    const current = new Set<string>();
    for (const c of this.cursors.values()) {
      const turn = c.entity.replies[c.next - 1]?.metadata?.["replayed_turn"];
      if (typeof turn === "string") current.add(turn);
    }
    const open = this.tree.descendants.filter(
      (e) => !this.cursors.has(e.id) && current.has(e.spawnedBy ?? ""),
    );
    const asked = (e: RecordedEntity) =>
      e.intent !== undefined &&
      messages.some((m) => m.role === "user" && m.content.includes(e.intent!));
    const entity = open.find(asked) ?? open[0];
    if (!entity)
      throw new ConfigError(
        "replay_exhausted",
        `replay of ${this.source}: an entity the recording does not have asked for a reply (a child spawned where none was recorded); the run diverged from the recording`,
      );
    return entity;
  }

  private foldSummary(): LLMResponse {
    const summary = this.tree.foldSummaries[this.folds];
    if (summary === undefined)
      throw new ConfigError(
        "replay_exhausted",
        `replay of ${this.source}: the run asked for a summary the recording does not have; the run diverged from the recording`,
      );
    this.folds++;
    const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    return { content: summary, toolCalls: null, thinking: null, usage };
  }
}

function rootOf(replies: readonly LLMResponse[]): RecordedEntity {
  return { id: "root", turns: [], replies: [...replies], spawnedBy: null, intent: undefined };
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
  let tree: RecordedTree;
  try {
    tree = readRecordedTree(file, typeof spec.thread === "string" ? spec.thread : undefined);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(
      "replay_loom_unreadable",
      `cannot read the recorded loom ${file}: ${unreadableBecause(err)}`,
    );
  }
  return new ReplayLLM(tree, spec.loom);
}
