/**
 * The loom drawn as a tree (`spell loom tree`): every turn under its parent, roots at the
 * left, forks and children as branches. One line a turn: sequence, what was called, how it
 * ended, and — for a council's turns — the phase, loop and seat.
 */
import { formatUsd } from "../../core/spend.js";
import type { LoomRecord, Turn } from "../records/index.js";

/** What the tree shows of a turn: its place and how it ended, none of its text. */
export type TreeTurn = Pick<
  Turn,
  "id" | "parent_id" | "sequence" | "entity_id" | "terminated" | "truncated" | "reason"
> & {
  metadata: Record<string, unknown>;
  gate_calls: readonly { gate_name: string }[];
  /** Format 3: the turn's cost, when its price was known. */
  cost_usd?: number | undefined;
};

/**
 * A turn record cut to what the tree shows, so a reader can hold every turn of a big loom
 * without their utterances and gate results; null for a record that is not a turn.
 */
export function treeTurn(record: LoomRecord): TreeTurn | null {
  if (record.type !== "turn") return null;
  const { id, parent_id, sequence, entity_id, terminated, truncated, reason } = record;
  const council = record.metadata["council"];
  const m = record.metadata;
  return {
    id,
    parent_id,
    sequence,
    entity_id,
    terminated,
    truncated,
    reason,
    metadata: {
      ...(council === undefined ? {} : { council }),
      tokens: (Number(m.tokens_prompt) || 0) + (Number(m.tokens_completion) || 0),
    },
    gate_calls: record.gate_calls.map((g) => ({ gate_name: g.gate_name })),
    cost_usd: record.cost_usd,
  };
}

/**
 * The line under the tree: turns, tokens and cost. A loom with any turn of unknown price has
 * no total cost — it says so, and how many turns lack a price, rather than sum what it has.
 */
export function treeTotal(turns: readonly TreeTurn[]): string {
  let tokens = 0;
  let usd = 0;
  let unpriced = 0;
  for (const t of turns) {
    tokens += Number(t.metadata["tokens"]) || 0;
    if (typeof t.cost_usd === "number") usd += t.cost_usd;
    else unpriced++;
  }
  const n = (k: number, word: string) => `${k} ${word}${k === 1 ? "" : "s"}`;
  const cost = unpriced ? `cost unknown (${n(unpriced, "turn")} without a price)` : formatUsd(usd);
  return `total: ${n(turns.length, "turn")} · ${tokens} tokens · ${cost}`;
}

function label(t: TreeTurn): string {
  const council = t.metadata["council"] as
    { phase?: string; loop?: number; seat?: string; step?: string } | undefined;
  const where = council
    ? [
        council.phase,
        council.loop === undefined ? undefined : `loop ${council.loop}`,
        council.seat,
        council.step,
      ]
        .filter(Boolean)
        .join(" · ")
    : t.gate_calls.map((g) => g.gate_name).join(", ") || "no gates";
  const end = t.terminated
    ? ` → ${t.reason ?? "terminated"}`
    : t.truncated
      ? ` → truncated (${t.reason ?? "?"})`
      : "";
  const cost = typeof t.cost_usd === "number" ? ` · ${formatUsd(t.cost_usd)}` : "";
  return `#${t.sequence} ${where}${end}${cost}  [${t.id}${t.entity_id ? ` · ${t.entity_id}` : ""}]`;
}

/** The lines of the tree (see treeLines), all at once. */
export function loomTree(
  records: Iterable<LoomRecord | TreeTurn>,
  redact: (t: string) => string = (t) => t,
): string[] {
  return [...treeLines(records, redact)];
}

/**
 * The lines of the tree, in the order turns were appended among siblings: made one at a time
 * as they are asked for (a long loom prints under back-pressure), walked without recursion (a
 * thread may be any number of turns deep).
 */
export function* treeLines(
  records: Iterable<LoomRecord | TreeTurn>,
  redact: (t: string) => string = (t) => t,
): Generator<string, void, undefined> {
  const turns: TreeTurn[] = [];
  for (const r of records) if (!("type" in r) || r.type === "turn") turns.push(r);
  const known = new Set(turns.map((t) => t.id));
  const children = new Map<string | null, TreeTurn[]>();
  for (const t of turns) {
    // A parent the file does not hold (a cut loom) makes the turn a root.
    const parent = t.parent_id && known.has(t.parent_id) ? t.parent_id : null;
    const list = children.get(parent) ?? [];
    list.push(t);
    children.set(parent, list);
  }
  // A thread without branches stays in one column; a branch point indents its branches.
  // The stack holds what is left to draw: a turn and the prefix of its line.
  type Step = { turn: TreeTurn; prefix: string; mark: string; childPrefix: string };
  const stepsOf = (parent: string | null, prefix: string): Step[] => {
    const list = children.get(parent) ?? [];
    const branching = list.length > 1;
    return list.map((turn, i) => {
      const last = i === list.length - 1;
      return {
        turn,
        prefix,
        mark: branching ? (last ? "└─ " : "├─ ") : "",
        childPrefix: branching ? `${prefix}${last ? "   " : "│  "}` : prefix,
      };
    });
  };
  const stack = stepsOf(null, "").reverse();
  for (let step = stack.pop(); step; step = stack.pop()) {
    yield redact(`${step.prefix}${step.mark}${label(step.turn)}`);
    stack.push(...stepsOf(step.turn.id, step.childPrefix).reverse());
  }
}
