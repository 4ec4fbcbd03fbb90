import type { GateCallRecord } from "../circle/gate.js";

/** The format version of loom records; bump it with a frozen sample under tests/fixtures/. */
export const LOOM_FORMAT_VERSION = 2;

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

/** One line of a JSONL loom. */
export type LoomRecord =
  | { type: "loom"; version: number; created: string }
  | ({ type: "identity" } & IdentityNode)
  | ({ type: "turn" } & Turn)
  | { type: "reward"; turn_id: string; reward: number; timestamp: string }
  /** Written after a torn line when a loom is reopened: marks the line above as a known cut. */
  | { type: "torn"; timestamp: string };
