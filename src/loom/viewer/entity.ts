/**
 * An entity as `spell view` lists it: what it was asked (the first intent), how it stands, and
 * its sums (turns, tokens, cost when the loom records it, its last reward, its time).
 */
import type { Turn } from "../records/index.js";

/** A turn as the index holds it: its line's place in the file and what a row shows. */
export interface ViewerTurn {
  id: string;
  parent: string | null;
  entity: string;
  seq: number;
  /** Byte offset and length of the turn's line. */
  off: number;
  len: number;
  gates: string[];
  /** The turn's observation is an error, or one of its gate calls failed. */
  err: boolean;
  tokens: number;
  cost: number | null;
  reward: number | null;
  end: string | null;
  ts: string;
  ms: number;
  /** `provider/model` when the loom records it (format 3). */
  llm: string | null;
  /** The first turn of a fork: the turn it was forked from. */
  forkOf: string | null;
}

export interface ViewerEntity {
  id: string;
  cantrip: string;
  /** root: a thread of its own; fork: forked from another's turn; child: called by a turn. */
  kind: "root" | "fork" | "child";
  /** The turn it hangs from (a fork's origin, a child's caller) and that turn's entity. */
  parentTurn: string | null;
  parentEntity: string | null;
  intent: string;
  first: string;
  last: string;
  turns: number;
  tokens: number;
  /** Null while no turn records a cost (looms before format 3). */
  cost: number | null;
  reward: number | null;
  /** How its last turn ended: a reason, "truncated: …", or null while it may go on. */
  end: string | null;
  err: boolean;
  started: string;
  updated: string;
  ms: number;
}

const INTENT_CHARS = 500;

export function newEntity(record: Turn, t: ViewerTurn, parentEntity: string | null): ViewerEntity {
  const kind = t.forkOf ? "fork" : parentEntity && parentEntity !== t.entity ? "child" : "root";
  return {
    id: t.entity,
    cantrip: record.cantrip_id,
    kind,
    parentTurn: kind === "root" ? null : t.parent,
    parentEntity: kind === "root" ? null : parentEntity,
    intent: "",
    first: t.id,
    last: t.id,
    turns: 0,
    tokens: 0,
    cost: null,
    reward: null,
    end: null,
    err: false,
    started: t.ts,
    updated: t.ts,
    ms: 0,
  };
}

/** Adds a turn to its entity's sums. */
export function addTurn(e: ViewerEntity, t: ViewerTurn, record: Turn): void {
  const intent = record.metadata?.["intent"];
  if (!e.intent && typeof intent === "string") e.intent = intent.slice(0, INTENT_CHARS);
  e.last = t.id;
  e.turns++;
  e.tokens += t.tokens;
  if (t.cost !== null) e.cost = (e.cost ?? 0) + t.cost;
  if (t.reward !== null) e.reward = t.reward;
  e.end = t.end;
  e.err ||= t.err;
  if (t.ts) e.updated = t.ts;
  e.ms += t.ms;
}
