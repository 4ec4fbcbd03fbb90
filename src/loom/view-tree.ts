/**
 * An entity's turns as the rows `spell view` draws: its thread in one column, and under the
 * turn they hang from, one step in, the forks made from it and the children it called (each
 * with its own thread and branches); a fold as a row of its own before the first turn it
 * covers, and every turn it covers marked. Walked without recursion: a thread may be any
 * number of turns deep. A thread (two side by side) is the path from the root to a turn.
 */
import type { FoldNode } from "./turn.js";
import type { LoomViewIndex, ViewTurn } from "./view-index.js";

export type TurnRow = Omit<ViewTurn, "off" | "len" | "parent"> & {
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

export type ViewRow = TurnRow | FoldRow;

export function turnRow(
  t: ViewTurn,
  depth: number,
  branch: TurnRow["branch"],
  folded: boolean,
): TurnRow {
  const { off: _off, len: _len, parent: _parent, ...rest } = t;
  return { ...rest, kind: "turn", depth, branch, folded };
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

/** The rows of an entity's tree (see above); empty for an entity the loom does not hold. */
export function entityRows(index: LoomViewIndex, entityId: string): ViewRow[] {
  const entity = index.entities.get(entityId);
  if (!entity) return [];
  const foldsOf = new Map<string, FoldNode[]>();
  for (const f of index.folds) {
    const list = foldsOf.get(f.entity_id);
    if (list) list.push(f);
    else foldsOf.set(f.entity_id, [f]);
  }
  const rows: ViewRow[] = [];
  const stack: { id: string; depth: number; branch: TurnRow["branch"] }[] = [
    { id: entity.first, depth: 0, branch: null },
  ];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const t = index.turns.get(item.id);
    if (!t) continue;
    const folds = foldsOf.get(t.entity) ?? [];
    for (const f of folds) if (f.from_turn_id === t.id) rows.push(foldRow(f, item.depth));
    const folded = folds.some((f) => t.seq >= f.from_sequence && t.seq <= f.to_sequence);
    rows.push(turnRow(t, item.depth, item.branch, folded));
    pushNext(index, t, item.depth, stack);
  }
  return rows;
}

/** A turn's next turns: its thread's continuation stays in the column, branches go one in. */
function pushNext(
  index: LoomViewIndex,
  t: ViewTurn,
  depth: number,
  stack: { id: string; depth: number; branch: TurnRow["branch"] }[],
): void {
  const next = index.children.get(t.id) ?? [];
  let continuation: string | null = null;
  const branches: { id: string; depth: number; branch: TurnRow["branch"] }[] = [];
  for (const id of next) {
    const c = index.turns.get(id);
    if (!c) continue;
    if (continuation === null && c.entity === t.entity && !c.forkOf) continuation = id;
    else branches.push({ id, depth: depth + 1, branch: c.forkOf ? "fork" : "child" });
  }
  // A stack: the continuation is drawn after the branches, which are drawn in file order.
  if (continuation !== null) stack.push({ id: continuation, depth, branch: null });
  for (let i = branches.length - 1; i >= 0; i--) stack.push(branches[i]!);
}

/** The path from the root to an entity's last turn (a fork's shares its origin's head). */
export function threadRows(index: LoomViewIndex, entityId: string): TurnRow[] {
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
