/**
 * What the viewer knows of a loom, however it is read (loom/viewer/index-file.ts reads a file's lines,
 * loom/viewer/store-index.ts a store's pages): one small entry per turn (the few fields a list or a tree
 * row shows, and where its line lies in a file), the entities, folds and rewards. Nothing of a
 * turn's text is held but its first intent; a turn's full record is read back when it is opened.
 */
import {
  LOOM_FORMAT_VERSION,
  type FoldNode,
  type LoomRecord,
  type Turn,
} from "../records/index.js";
import { addTurn, newEntity, type ViewerEntity, type ViewerTurn } from "./entity.js";

/** A loom as the viewer's routes read it (the server, `spell loom view`'s page). */
export interface ViewerIndex {
  readonly turns: Map<string, ViewerTurn>;
  /** Turn ids in append order. */
  readonly order: string[];
  readonly children: Map<string | null, string[]>;
  readonly entities: Map<string, ViewerEntity>;
  readonly folds: FoldNode[];
  /** Grows with every change read: the page asks for it to know it must look again. */
  readonly version: number;
  /** Why the loom cannot be read (a newer format), or null. */
  readonly problem: string | null;
  /** True while records are read in the background. */
  readonly reading: boolean;
  /**
   * Looks at the loom again, as a server does at each request: what was appended is read (a
   * little now, much in the background). Throws, or rejects, when the loom cannot be read.
   */
  look(): void | Promise<void>;
  /** Resolves once what a look left to the background is read. */
  whenRead(): Promise<void>;
  /** A turn's full record (with a reward given later), or null when it is not held. */
  readTurn(id: string): Turn | null | Promise<Turn | null>;
}

/** The index's entries, built from records as they are read. */
export class ViewerIndexBase {
  readonly turns = new Map<string, ViewerTurn>();
  /** Turn ids in append order. */
  readonly order: string[] = [];
  readonly children = new Map<string | null, string[]>();
  readonly entities = new Map<string, ViewerEntity>();
  readonly folds: FoldNode[] = [];
  /** Grows with every change read: the page asks for it to know it must look again. */
  version = 0;
  /** Why the loom cannot be read (a newer format), or null. */
  problem: string | null = null;

  /** Forgets every entry (a file that shrank is read again). */
  protected reset(): void {
    this.turns.clear();
    this.order.length = 0;
    this.children.clear();
    this.entities.clear();
    this.folds.length = 0;
    this.problem = null;
  }

  /** A record read: at `off` for `len` bytes in a file (0, 0 from a store). */
  protected record(record: LoomRecord, off: number, len: number): void {
    if (record.type === "loom" && record.version > LOOM_FORMAT_VERSION)
      this.problem = `loom format version ${record.version} is newer than this Spellbook reads (${LOOM_FORMAT_VERSION})`;
    // A record another writer made (a database row is any JSON): one that names no turn or
    // entity is left out, never a reason the whole loom cannot be shown.
    else if (record.type === "turn") {
      if (typeof record.id === "string" && typeof record.entity_id === "string")
        this.addTurn(record, off, len);
    } else if (record.type === "fold") this.folds.push(record);
    else if (record.type === "reward" && typeof record.reward === "number")
      this.reward(record.turn_id, record.reward);
  }

  private reward(turnId: string, reward: number): void {
    const t = this.turns.get(turnId);
    if (!t) return;
    t.reward = reward;
    const e = this.entities.get(t.entity);
    if (e) e.reward = reward;
  }

  private addTurn(record: Turn, off: number, len: number): void {
    if (this.turns.has(record.id)) return;
    const t = viewTurn(record, off, len);
    this.turns.set(t.id, t);
    this.order.push(t.id);
    const siblings = this.children.get(t.parent);
    if (siblings) siblings.push(t.id);
    else this.children.set(t.parent, [t.id]);
    let e = this.entities.get(t.entity);
    if (!e) {
      const parent = t.parent === null ? undefined : this.turns.get(t.parent);
      e = newEntity(record, t, parent?.entity ?? null);
      this.entities.set(t.entity, e);
    }
    addTurn(e, t, record);
  }
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function viewTurn(r: Turn, off: number, len: number): ViewerTurn {
  const m = (
    r.metadata !== null && typeof r.metadata === "object" ? r.metadata : {}
  ) as Turn["metadata"];
  // Loom format 3 records who answered and the cost at the turn's top level.
  const llm = (r.llm ?? m["llm"]) as { provider?: unknown; model?: unknown } | undefined;
  const cost = r.cost_usd ?? m["cost_usd"];
  const fork = m["fork"] as { from_turn?: unknown } | undefined;
  // Only objects are gate calls (a hostile row's `[null, 5]` is none).
  const calls = Array.isArray(r.gate_calls)
    ? r.gate_calls.filter((g) => g !== null && typeof g === "object")
    : [];
  return {
    id: r.id,
    parent: typeof r.parent_id === "string" ? r.parent_id : null,
    entity: r.entity_id,
    seq: num(r.sequence),
    off,
    len,
    gates: calls.map((g) => (typeof g.gate_name === "string" ? g.gate_name : "?")),
    err: r.is_error === true || calls.some((g) => g.is_error),
    tokens: num(m.tokens_prompt) + num(m.tokens_completion),
    cost: typeof cost === "number" ? cost : null,
    reward: typeof r.reward === "number" ? r.reward : null,
    end: r.terminated ? (r.reason ?? "done") : r.truncated ? `truncated: ${r.reason ?? "?"}` : null,
    ts: typeof m.timestamp === "string" ? m.timestamp : "",
    ms: num(m.duration_ms),
    llm:
      llm && typeof llm === "object" ? [llm.provider, llm.model].filter(Boolean).join("/") : null,
    forkOf: fork && typeof fork.from_turn === "string" ? fork.from_turn : null,
  };
}
