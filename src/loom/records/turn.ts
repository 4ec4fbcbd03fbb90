import { isoNow } from "../../core/clock.js";
import type { LLMId, TurnContent, TurnCost, TurnHead } from "../../core/loom-writer.js";
import type { GateCallRecord } from "../../core/medium.js";
import type { TurnOutcome } from "../../core/outcome.js";

/** The format version of loom records; bump it with a frozen sample under tests/fixtures/. */
export const LOOM_FORMAT_VERSION = 3;

/** A turn record as the spec's §6.1 writes it (snake_case: it is a wire format). */
export interface Turn {
  id: string;
  parent_id: string | null;
  cantrip_id: string;
  entity_id: string;
  role: "turn";
  sequence: number;
  utterance: string;
  observation: string;
  gate_calls: GateCallRecord[];
  metadata: TurnMetadata;
  reward: number | null;
  terminated: boolean;
  truncated: boolean;
  /** Why the thread ended here: "done", "text", or the ward/cause of a truncation. */
  reason: string | null;
  /** The turn's observation is an error (code that threw or ran out of time or memory, a
   * failed gate); written only when true, so a reader treats a missing key as false. */
  is_error?: true;
  /** Format 3: who answered (absent in older looms and in turns appended by hand). */
  llm?: LLMId;
  /** Format 3: what the turn cost in USD; absent when the model's price is unknown. */
  cost_usd?: number;
}

export interface TurnMetadata {
  tokens_prompt: number;
  tokens_completion: number;
  tokens_cached: number;
  duration_ms: number;
  timestamp: string;
  /** Anything else a provider or medium reports (LLM-6: never required by consumers). */
  [key: string]: unknown;
}

/** The loom's root context for a cantrip (IDENTITY-4): identity and the circle's presentation. */
export interface IdentityNode {
  id: string;
  cantrip_id: string;
  role: "identity";
  identity: Record<string, unknown>;
  /** Names of the gates presented as tools (LOOM-6: never folded). */
  tools: string[];
  medium: string;
  timestamp: string;
}

/**
 * A fold of the view an entity's LLM was sent (§6.8). The turns it covers stay in the loom
 * untouched (LOOM-5); this says which were shown as the summary from then on.
 */
export interface FoldNode {
  id: string;
  cantrip_id: string;
  entity_id: string;
  role: "fold";
  /** First and last folded turn: sequence numbers and ids. */
  from_sequence: number;
  to_sequence: number;
  from_turn_id: string;
  to_turn_id: string;
  summary: string;
  strategy: string;
  estimated_tokens: number;
  timestamp: string;
}

/** One line of a JSONL loom. */
export type LoomRecord =
  | { type: "loom"; version: number; created: string }
  | ({ type: "identity" } & IdentityNode)
  | ({ type: "turn" } & Turn)
  | { type: "reward"; turn_id: string; reward: number; reason?: string; timestamp: string }
  /** Added in format 2 without a version bump: older readers skip a type they do not know. */
  | ({ type: "fold" } & FoldNode)
  /** Written after a torn line when a loom is reopened: marks the line above as a known cut. */
  | { type: "torn"; timestamp: string };

/** The loop's account of a turn (core's LoomWriter) → the record the loom stores (§6.1). */
export function turnRecord(
  head: TurnHead,
  content: TurnContent,
  cost: TurnCost,
  outcome: TurnOutcome,
): Turn {
  const { usage, llm, costUsd } = cost;
  const metadata: TurnMetadata = {
    tokens_prompt: usage.promptTokens,
    tokens_completion: usage.completionTokens,
    tokens_cached: usage.cachedTokens,
    duration_ms: cost.durationMs,
    timestamp: isoNow(),
  };
  if (cost.extra) Object.assign(metadata, cost.extra);
  if (llm && !content.isError) return loopTurn(head, content, metadata, outcome, llm, costUsd);
  const turn: Turn = {
    id: head.id,
    parent_id: head.parentId,
    cantrip_id: head.cantripId,
    entity_id: head.entityId,
    role: "turn",
    sequence: head.sequence,
    utterance: content.utterance,
    observation: content.observation,
    gate_calls: content.gateCalls,
    metadata,
    reward: null,
    terminated: outcome.kind === "terminated",
    truncated: outcome.kind === "truncated",
    reason: outcome.kind === "continue" ? null : outcome.reason,
  };
  if (content.isError) turn.is_error = true;
  if (llm) turn.llm = llm;
  if (costUsd !== undefined) turn.cost_usd = costUsd;
  return turn;
}

/**
 * A loop's turn without an error: one object literal with every key it has (its llm, and its cost
 * when priced), not a literal with keys added. V8 reaches an object with added keys through a
 * hidden-class transition it holds weakly, freed by a full GC when no turn is alive (between two
 * casts), and every optimized function that reads turns was then thrown away (issue 40). The keys
 * are in the same order as turnRecord's (jsonl-codec.ts, TURN_KEYS).
 */
function loopTurn(
  head: TurnHead,
  content: TurnContent,
  metadata: TurnMetadata,
  outcome: TurnOutcome,
  llm: LLMId,
  costUsd: number | undefined,
): Turn {
  const terminated = outcome.kind === "terminated";
  const truncated = outcome.kind === "truncated";
  const reason = outcome.kind === "continue" ? null : outcome.reason;
  const { id, parentId, cantripId, entityId, sequence } = head;
  const { utterance, observation, gateCalls } = content;
  if (costUsd === undefined)
    return {
      id,
      parent_id: parentId,
      cantrip_id: cantripId,
      entity_id: entityId,
      role: "turn",
      sequence,
      utterance,
      observation,
      gate_calls: gateCalls,
      metadata,
      reward: null,
      terminated,
      truncated,
      reason,
      llm,
    };
  return {
    id,
    parent_id: parentId,
    cantrip_id: cantripId,
    entity_id: entityId,
    role: "turn",
    sequence,
    utterance,
    observation,
    gate_calls: gateCalls,
    metadata,
    reward: null,
    terminated,
    truncated,
    reason,
    llm,
    cost_usd: costUsd,
  };
}
