/**
 * An entity's turns as the rows `spell view` draws: its thread in one column, and under the
 * turn they hang from, one step in, the forks made from it and the children it called (each
 * with its own thread and branches); a fold as a row of its own before the first turn it
 * covers, and every turn it covers marked. Walked without recursion: a thread may be any
 * number of turns deep. A thread (two side by side) is the path from the root to a turn.
 */
import type { FoldNode } from "../records/index.js";
import type { ViewerIndex, ViewerTurn } from "./index-file.js";

export type TurnRow = Omit<ViewerTurn, "off" | "len" | "parent"> & {
  kind: "turn";
  depth: number;
  /** The first turn of a fork or of a child, under the turn it hangs from. */
  branch: "fork" | "child" | null;
  /** Covered by a fold: the LLM was sent its summary instead from then on. */
  folded: boolean;
};

export interface FoldRow {
  kind: "fold";
  id: string;
  depth: number;
  entity: string;
  from: number;
  to: number;
  fromTurn: string;
  toTurn: string;
  summary: string;
  strategy: string;
}

export type ViewerRow = TurnRow | FoldRow;

/** A row of a turn, built field by field (an object rest/spread here cost ~40 µs a row). */
export function turnRow(
  t: ViewerTurn,
  depth: number,
  branch: TurnRow["branch"],
  folded: boolean,
): TurnRow {
  return {
    kind: "turn",
    id: t.id,
    entity: t.entity,
    seq: t.seq,
    gates: t.gates,
    err: t.err,
    tokens: t.tokens,
    cost: t.cost,
    reward: t.reward,
    end: t.end,
    ts: t.ts,
    ms: t.ms,
    llm: t.llm,
    forkOf: t.forkOf,
    depth,
    branch,
    folded,
  };
}

function foldRow(f: FoldNode, depth: number): FoldRow {
  return {
    kind: "fold",
    id: f.id,
    depth,
    entity: f.entity_id,
    from: f.from_sequence,
    to: f.to_sequence,
    fromTurn: f.from_turn_id,
    toTurn: f.to_turn_id,
    summary: f.summary,
    strategy: f.strategy,
  };
}

/**
 * An entity's tree laid out: the turn (or fold) of each row and its depth, in two arrays; a
 * row's object is made only when a page of rows is asked for (a 100,000-turn tree is laid out
 * without 100,000 row objects).
 */
export class TreeLayout {
  readonly items: (ViewerTurn | FoldNode)[] = [];
  readonly depths: number[] = [];

  constructor(
    private readonly index: ViewerIndex,
    private readonly foldsOf: Map<string, FoldNode[]>,
  ) {}

  get length(): number {
    return this.items.length;
  }

  rows(offset: number, limit: number): ViewerRow[] {
    const out: ViewerRow[] = [];
    for (let i = offset; i < Math.min(offset + limit, this.items.length); i++)
      out.push(this.row(i));
    return out;
  }

  private row(i: number): ViewerRow {
    const item = this.items[i]!;
    const depth = this.depths[i]!;
    if ("role" in item) return foldRow(item, depth);
    const folds = this.foldsOf.get(item.entity) ?? [];
    const folded = folds.some((f) => item.seq >= f.from_sequence && item.seq <= f.to_sequence);
    const parent = item.parent === null ? undefined : this.index.turns.get(item.parent);
    const branch = item.forkOf ? "fork" : parent && parent.entity !== item.entity ? "child" : null;
    return turnRow(item, depth, depth === 0 && i === 0 ? null : branch, folded);
  }
}

/** An entity's tree (see above); empty for an entity the loom does not hold. */
export function entityLayout(index: ViewerIndex, entityId: string): TreeLayout {
  const foldsOf = new Map<string, FoldNode[]>();
  for (const f of index.folds) {
    const list = foldsOf.get(f.entity_id);
    if (list) list.push(f);
    else foldsOf.set(f.entity_id, [f]);
  }
  const layout = new TreeLayout(index, foldsOf);
  const entity = index.entities.get(entityId);
  if (!entity) return layout;
  // The stack of turns to draw, as two arrays (no object per turn).
  const ids: string[] = [entity.first];
  const depths: number[] = [0];
  for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
    const depth = depths.pop()!;
    const t = index.turns.get(id);
    if (!t) continue;
    for (const f of foldsOf.get(t.entity) ?? [])
      if (f.from_turn_id === t.id) {
        layout.items.push(f);
        layout.depths.push(depth);
      }
    layout.items.push(t);
    layout.depths.push(depth);
    pushNext(index, t, depth, ids, depths);
  }
  return layout;
}

/** All the rows of an entity's tree at once (a small loom, a saved page). */
export function entityRows(index: ViewerIndex, entityId: string): ViewerRow[] {
  const layout = entityLayout(index, entityId);
  return layout.rows(0, layout.length);
}

/** A turn's next turns: its thread's continuation stays in the column, branches go one in. */
function pushNext(
  index: ViewerIndex,
  t: ViewerTurn,
  depth: number,
  ids: string[],
  depths: number[],
): void {
  const next = index.children.get(t.id);
  if (!next) return;
  let continuation: string | null = null;
  const branches: string[] = [];
  for (const id of next) {
    const c = index.turns.get(id);
    if (!c) continue;
    if (continuation === null && c.entity === t.entity && !c.forkOf) continuation = id;
    else branches.push(id);
  }
  // A stack: the continuation is drawn after the branches, which are drawn in file order.
  if (continuation !== null) {
    ids.push(continuation);
    depths.push(depth);
  }
  for (let i = branches.length - 1; i >= 0; i--) {
    ids.push(branches[i]!);
    depths.push(depth + 1);
  }
}

/** The path from the root to an entity's last turn (a fork's shares its origin's head). */
export function threadRows(index: ViewerIndex, entityId: string): TurnRow[] {
  const entity = index.entities.get(entityId);
  if (!entity) return [];
  const path: TurnRow[] = [];
  const seen = new Set<string>();
  for (let t = index.turns.get(entity.last); t && !seen.has(t.id);) {
    seen.add(t.id);
    path.push(turnRow(t, 0, t.forkOf ? "fork" : null, false));
    t = t.parent === null ? undefined : index.turns.get(t.parent);
  }
  return path.reverse();
}
