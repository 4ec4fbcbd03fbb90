/**
 * A recorded run as replay needs it: the entity that made the chosen thread (the root) and every
 * entity spawned below its turns (children, grandchildren), each with the replies its LLM gave.
 */
import { ConfigError } from "../../core/errors.js";
import type { LLMResponse, ToolCall } from "../../core/contract.js";
import type { IdentityNode, Turn } from "../../loom/records/index.js";
import { readLoomFile } from "../../loom/stores/index.js";
import { REPLAY_KEY, type RecordedReply } from "./replay-record.js";
import { ownEntry } from "../../core/own.js";

/** One recorded entity: its turns in order and the replies its LLM gave, one per turn that had one. */
export interface RecordedEntity {
  id: string;
  turns: Turn[];
  replies: LLMResponse[];
  /** The turn of another entity it was spawned from (its first turn's parent); null for the root. */
  spawnedBy: string | null;
  /** The intent of its first turn, when recorded. */
  intent: string | undefined;
}

export interface RecordedTree {
  root: RecordedEntity;
  /** Every entity below the root's turns, in the order they were made (ids are counters). */
  descendants: RecordedEntity[];
  /** Summaries an LLM wrote for folds (strategy llm), in the order they were written. */
  foldSummaries: string[];
}

/** How a medium with one tool speaks: the tool and the argument its utterance is (code, bash). */
export interface MediumTool {
  tool: string;
  argument: string;
}

/**
 * The LLM side of a recorded thread, turn by turn. Turns carry their reply exactly
 * (`metadata.llm_response`); older turns are rebuilt from the utterance (the whole code of a
 * code or bash turn, when `medium` says so) and gate calls (tool-call ids are then new).
 */
export function repliesOfThread(turns: readonly Turn[], medium?: MediumTool): LLMResponse[] {
  const out: LLMResponse[] = [];
  let n = 0;
  for (const turn of turns) {
    const recorded = turn.metadata[REPLAY_KEY] as RecordedReply | undefined;
    const reply = (
      content: string | null,
      toolCalls: ToolCall[] | null,
      thinking?: string | null,
    ) =>
      out.push({
        content,
        toolCalls,
        thinking: thinking ?? null,
        usage: {
          promptTokens: turn.metadata.tokens_prompt ?? 0,
          completionTokens: turn.metadata.tokens_completion ?? 0,
          cachedTokens: turn.metadata.tokens_cached ?? 0,
        },
        metadata: { replayed_turn: turn.id },
      });
    if (recorded) {
      reply(
        recorded.content,
        recorded.tool_calls?.map((c) => ({ ...c })) ?? null,
        recorded.thinking,
      );
      continue;
    }
    if (turn.utterance === "" && turn.gate_calls.length === 0) continue; // a query cut off by a ward: no reply
    if (medium) {
      const args = JSON.stringify({ [medium.argument]: turn.utterance });
      reply(null, [{ id: `call_replay_${++n}`, name: medium.tool, arguments: args }]);
      continue;
    }
    const calls: ToolCall[] = turn.gate_calls.map((g) => ({
      id: `call_replay_${++n}`,
      name: g.gate_name,
      arguments: g.arguments,
    }));
    const rendered = turn.gate_calls.map((g) => `${g.gate_name}(${g.arguments})`).join("\n");
    reply(
      calls.length && turn.utterance === rendered ? null : turn.utterance,
      calls.length ? calls : null,
    );
  }
  return out;
}

const MEDIUM_TOOLS: Readonly<Record<string, MediumTool>> = {
  code: { tool: "js", argument: "code" },
  bash: { tool: "bash", argument: "command" },
};

function mediumTool(identity: IdentityNode | undefined): MediumTool | undefined {
  const known = identity ? ownEntry(MEDIUM_TOOLS, identity.medium) : undefined;
  if (!known || !identity) return undefined;
  return { ...known, tool: identity.tools.length === 1 ? identity.tools[0]! : known.tool };
}

interface LoomIndex {
  turns: Map<string, Turn>;
  byEntity: Map<string, Turn[]>;
  identities: Map<string, IdentityNode>;
  last: Turn | undefined;
  foldSummaries: string[];
}

function indexLoom(file: string): LoomIndex {
  const index: LoomIndex = {
    turns: new Map(),
    byEntity: new Map(),
    identities: new Map(),
    last: undefined,
    foldSummaries: [],
  };
  for (const r of readLoomFile(file).records) {
    if (r.type === "identity") {
      const { type: _type, ...node } = r;
      index.identities.set(node.cantrip_id, node);
    } else if (r.type === "fold") {
      if (r.strategy === "llm") index.foldSummaries.push(r.summary);
    } else if (r.type === "turn") {
      const { type: _type, ...turn } = r;
      index.turns.set(turn.id, turn);
      const list = index.byEntity.get(turn.entity_id) ?? [];
      list.push(turn);
      index.byEntity.set(turn.entity_id, list);
      index.last = turn;
    }
  }
  return index;
}

/** Picks a thread of a loom file: the one ending at `leaf` (any turn id), else the last turn written. */
export function readRecordedThread(file: string, leaf?: string): Turn[] {
  return threadOf(indexLoom(file), file, leaf);
}

function threadOf(index: LoomIndex, file: string, leaf: string | undefined): Turn[] {
  const end = leaf === undefined ? index.last : index.turns.get(leaf);
  if (!end) {
    throw new ConfigError(
      "replay_thread_missing",
      leaf === undefined
        ? `${file} holds no turns to replay`
        : `${file} has no turn ${JSON.stringify(leaf)}`,
    );
  }
  const path: Turn[] = [];
  for (let t: Turn | undefined = end; t; t = t.parent_id ? index.turns.get(t.parent_id) : undefined)
    path.push(t);
  // Only the entity that made the leaf: its parent's turns (a fork's history) are not its replies.
  return path.reverse().filter((t) => t.entity_id === end.entity_id);
}

/** The recorded thread ending at `leaf` (default: the last turn written) and every entity spawned below it. */
export function readRecordedTree(file: string, leaf?: string): RecordedTree {
  const index = indexLoom(file);
  const entity = (turns: Turn[]): RecordedEntity => {
    const first = turns[0]!;
    return {
      id: first.entity_id,
      turns,
      replies: repliesOfThread(turns, mediumTool(index.identities.get(first.cantrip_id))),
      spawnedBy: first.parent_id,
      intent: typeof first.metadata["intent"] === "string" ? first.metadata["intent"] : undefined,
    };
  };
  const root = { ...entity(threadOf(index, file, leaf)), spawnedBy: null };
  const descendants: RecordedEntity[] = [];
  const below = new Set(root.turns.map((t) => t.id));
  const ids = [...index.byEntity.keys()].filter((id) => id !== root.id).sort();
  // Children first appear under a turn already below the root; grandchildren under a child's turn.
  for (let grew = true; grew;) {
    grew = false;
    for (const id of ids) {
      if (descendants.some((d) => d.id === id)) continue;
      const turns = [...index.byEntity.get(id)!].sort((a, b) => a.sequence - b.sequence);
      if (!below.has(turns[0]!.parent_id ?? "")) continue;
      descendants.push(entity(turns));
      for (const t of turns) below.add(t.id);
      grew = true;
    }
  }
  descendants.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { root, descendants, foldSummaries: index.foldSummaries };
}
