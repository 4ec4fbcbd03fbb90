import type { GateCallRecord } from "../../core/medium.js";
import type { LoomRecord, Turn } from "../records/index.js";

/**
 * Version 2 of the line format stores a big gate result once per turn: in version 1 a 4 MB
 * `read` result was written twice, in `gate_calls` and inside the observation that shows it.
 * When a gate call's result (of MIN_SHARED characters or more) appears in the observation,
 * the observation is written as pieces, the result being a reference to the gate call:
 * `"observation":{"$parts":["read: ",{"$ref":"gate_calls/0/result"},"\n…"]}`. Any other
 * observation is a string, as in version 1. Reading puts the pieces back, whatever the header.
 */
type Piece = string | { $ref: string };

/** Results shorter than this are cheaper written twice than referred to. */
const MIN_SHARED = 1024;

/** The turn's line (with its newline): `{"type":"turn",…}`. */
export function encodeTurn(turn: Turn, compact: boolean): string {
  return `${turnJson(turn, compact)}\n`;
}

/** The turn's record as JSON, without the newline that ends its line: `{"type":"turn",…}`. */
export function turnJson(turn: Turn, compact: boolean): string {
  const ref = compact ? observationRef(turn) : null;
  if (!ref && inTurnOrder(turn)) return JSON.stringify(turnLine(turn));
  const json = ref
    ? JSON.stringify({ ...turn, observation: ref })
    : // Same line as { type: "turn", ...turn }, without copying the turn.
      JSON.stringify(turn);
  return `{"type":"turn",${json.slice(1)}`;
}

/**
 * A turn's keys in the order the engine writes them (loom/records/turn.ts, turnRecord); the last three
 * are optional. A turn whose own keys come in this order is encoded from `turnLine` below.
 */
const TURN_KEYS = [
  "id",
  "parent_id",
  "cantrip_id",
  "entity_id",
  "role",
  "sequence",
  "utterance",
  "observation",
  "gate_calls",
  "metadata",
  "reward",
  "terminated",
  "truncated",
  "reason",
  "is_error",
  "llm",
  "cost_usd",
] as const;
const REQUIRED_KEYS = 14;

/**
 * Whether `{ type: "turn", ...turn }` is encoded exactly as `turnLine(turn)`: a plain object
 * whose keys are TURN_KEYS in that order (the optional ones may be missing). Any other turn (an
 * appended one with keys of its own, or in another order) takes the general path.
 */
function inTurnOrder(turn: Turn): boolean {
  if (Object.getPrototypeOf(turn) !== Object.prototype) return false;
  let at = 0;
  for (const key in turn) {
    while (at < TURN_KEYS.length && TURN_KEYS[at] !== key) {
      if (at < REQUIRED_KEYS) return false;
      at++;
    }
    if (at === TURN_KEYS.length) return false;
    at++;
  }
  return at >= REQUIRED_KEYS;
}

/**
 * The record of a turn in TURN_KEYS order, `type` first. Building it costs less than the line
 * made of the turn's JSON cut and glued after `{"type":"turn",` — that copy was a kilobyte a turn
 * (bench/loop.bench.mjs, issue 40). A missing optional key is undefined here, which
 * JSON.stringify leaves out as it leaves out the missing key.
 */
function turnLine(turn: Turn): { type: "turn" } & Turn {
  return {
    type: "turn",
    id: turn.id,
    parent_id: turn.parent_id,
    cantrip_id: turn.cantrip_id,
    entity_id: turn.entity_id,
    role: turn.role,
    sequence: turn.sequence,
    utterance: turn.utterance,
    observation: turn.observation,
    gate_calls: turn.gate_calls,
    metadata: turn.metadata,
    reward: turn.reward,
    terminated: turn.terminated,
    truncated: turn.truncated,
    reason: turn.reason,
    is_error: turn.is_error,
    llm: turn.llm,
    cost_usd: turn.cost_usd,
  };
}

function observationRef(turn: Turn): { $parts: Piece[] } | null {
  const { observation, gate_calls: calls } = turn;
  if (observation.length < MIN_SHARED) return null;
  let pieces: Piece[] = [observation];
  let shared = false;
  calls.forEach((call, i) => {
    if (call.result.length < MIN_SHARED) return;
    const at = pieces.findIndex((p) => typeof p === "string" && p.includes(call.result));
    if (at < 0) return;
    const text = pieces[at] as string;
    const cut = text.indexOf(call.result);
    const ref = { $ref: `gate_calls/${i}/result` };
    const split = [text.slice(0, cut), ref, text.slice(cut + call.result.length)];
    pieces = [...pieces.slice(0, at), ...split, ...pieces.slice(at + 1)];
    shared = true;
  });
  return shared ? { $parts: pieces.filter((p) => p !== "") } : null;
}

/** A parsed line as the loom's record: a shared observation is put back. */
export function decodeRecord(value: unknown): LoomRecord | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const record = value as LoomRecord;
  if (typeof record.type !== "string") return null;
  if (record.type === "turn") {
    const observation = (record as { observation: unknown }).observation;
    if (observation !== null && typeof observation === "object") {
      (record as { observation: string }).observation = resolveRef(
        observation,
        Array.isArray(record.gate_calls) ? record.gate_calls : [],
      );
    }
  }
  return record;
}

function resolveRef(value: { $parts?: unknown }, calls: GateCallRecord[]): string {
  if (!Array.isArray(value.$parts)) return "";
  let out = "";
  for (const piece of value.$parts as unknown[]) {
    if (typeof piece === "string") out += piece;
    else {
      const m = /^gate_calls\/(\d+)\/result$/.exec(String((piece as { $ref?: unknown }).$ref));
      out += (m && calls[Number(m[1])]?.result) ?? "";
    }
  }
  return out;
}
