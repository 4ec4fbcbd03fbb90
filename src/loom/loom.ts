import { ConfigError } from "../core/errors.js";
import { isoNow } from "../core/clock.js";
import { MemoryStore, type LoomStore } from "./store.js";
import type { IdentityNode, LoomRecord, Turn } from "./turn.js";

/** What the loom knows in memory: every turn, identity and reward, in append order. */
class LoomIndex {
  readonly order: Turn[] = [];
  readonly identities = new Map<string, IdentityNode>();
  readonly rewards = new Map<string, number>();
  /** id → turn: built on the first lookup, kept current from then on. */
  private byId: Map<string, Turn> | null = null;

  add(record: LoomRecord): void {
    switch (record.type) {
      case "identity": {
        const { type: _type, ...node } = record;
        this.identities.set(node.cantrip_id, Object.freeze(node));
        break;
      }
      case "turn": {
        const { type: _type, ...turn } = record;
        this.addTurn(Object.freeze(turn));
        break;
      }
      case "reward":
        this.rewards.set(record.turn_id, record.reward);
        break;
      case "loom":
      case "torn":
        break;
    }
  }

  addTurn(turn: Turn): void {
    this.order.push(turn);
    this.byId?.set(turn.id, turn);
  }

  get turnsById(): Map<string, Turn> {
    if (!this.byId) {
      this.byId = new Map();
      for (const t of this.order) this.byId.set(t.id, t);
    }
    return this.byId;
  }
}

/**
 * The append-only tree of every turn (chapter 6). Turns link to parents; a thread is any
 * root-to-leaf path. Records reach the store as they are appended (LOOM-1).
 *
 * A store that reads its records back (a JSONL file) is the loom's memory: appending only
 * writes, and the in-memory index is built from the store when the loom is first read — so
 * neither a long cast nor a long history on disk costs memory or start-up time until someone
 * asks. A store that cannot read back (memory) is indexed as records arrive.
 */
export class Loom {
  private indexed: LoomIndex | null;
  /** Identities recorded by this process (an identity is recorded once, IDENTITY-4). */
  private readonly recorded = new Set<string>();

  constructor(readonly store: LoomStore = new MemoryStore()) {
    this.indexed = store.readsBack ? null : new LoomIndex();
  }

  get size(): number {
    return this.index.order.length;
  }

  /** Records the identity root of a cantrip once (IDENTITY-4). */
  recordIdentity(node: IdentityNode): void {
    if (this.recorded.has(node.cantrip_id)) return;
    this.write({ type: "identity", ...node });
    this.recorded.add(node.cantrip_id);
  }

  identity(cantripId: string): IdentityNode | undefined {
    return this.index.identities.get(cantripId);
  }

  /**
   * Appends a turn. Its parent may be recorded later: a child's root turn hangs from the turn
   * that spawned it (COMP-5), which is appended only when it ends — after the child's turns.
   */
  append(turn: Turn): void {
    if (this.index.turnsById.has(turn.id)) {
      throw new ConfigError(
        "loom_append_only",
        `loom is append-only: turn ${turn.id} already exists`,
      );
    }
    this.appendGenerated(turn);
  }

  /**
   * @internal — the engine's append, for turns whose ids this process generated (`newId`):
   * unique by construction, so the hot path skips the lookup `append` makes for anyone else.
   */
  appendGenerated(turn: Turn): void {
    // The store writes the turn as is; an index, when there is one, keeps the same frozen object.
    this.store.appendTurn(turn);
    this.indexed?.addTurn(Object.freeze(turn));
  }

  /** LOOM-3's one exception: a reward, appended as its own record, never by rewriting. */
  annotateReward(turnId: string, reward: number): void {
    if (!this.index.turnsById.has(turnId))
      throw new ConfigError("loom_unknown_turn", `no turn ${turnId} in the loom`);
    if (typeof reward !== "number" || !Number.isFinite(reward)) {
      throw new ConfigError("bad_reward", "reward must be a finite number");
    }
    this.write({ type: "reward", turn_id: turnId, reward, timestamp: isoNow() });
  }

  /** LOOM-3: there is no deletion. */
  deleteTurn(_turnId: string): never {
    throw new ConfigError("loom_append_only", "loom is append-only: turns cannot be deleted");
  }

  /** LOOM-3: there is no modification. */
  updateTurn(_turnId: string): never {
    throw new ConfigError("loom_append_only", "loom is append-only: turns cannot be modified");
  }

  get(turnId: string): Turn | undefined {
    const turn = this.index.turnsById.get(turnId);
    return turn && this.withReward(turn);
  }

  /** Every turn in append order. */
  turns(): Turn[] {
    return this.index.order.map((t) => this.withReward(t));
  }

  /** The path root → leaf ending at `leafId` (LOOM-10). */
  thread(leafId: string): Turn[] {
    const byId = this.index.turnsById;
    const path: Turn[] = [];
    const seen = new Set<string>();
    for (let t = byId.get(leafId); t; t = t.parent_id ? byId.get(t.parent_id) : undefined) {
      // A hand-edited file could link a turn to itself: a cycle is corruption, not a thread.
      if (seen.has(t.id))
        throw new ConfigError("loom_corrupt", `loom has a parent cycle at turn ${t.id}`);
      seen.add(t.id);
      path.push(this.withReward(t));
    }
    if (path.length === 0)
      throw new ConfigError("loom_unknown_turn", `no turn ${leafId} in the loom`);
    return path.reverse();
  }

  /** Turns without children: one per thread. */
  leaves(): Turn[] {
    const { order } = this.index;
    const parents = new Set<string>();
    for (const t of order) if (t.parent_id) parents.add(t.parent_id);
    return order.filter((t) => !parents.has(t.id)).map((t) => this.withReward(t));
  }

  threads(): Turn[][] {
    return this.leaves().map((leaf) => this.thread(leaf.id));
  }

  children(turnId: string): Turn[] {
    return this.index.order.filter((t) => t.parent_id === turnId).map((t) => this.withReward(t));
  }

  close(): void {
    this.store.close();
  }

  /** The in-memory index, read from the store on first use. */
  private get index(): LoomIndex {
    if (!this.indexed) {
      const index = new LoomIndex();
      for (const record of this.store.load()) index.add(record);
      this.indexed = index;
    }
    return this.indexed;
  }

  private write(record: LoomRecord): void {
    this.store.append(record); // on disk first: a failed write leaves the index untouched
    this.indexed?.add(record);
  }

  private withReward(turn: Turn): Turn {
    const reward = this.indexed?.rewards.get(turn.id);
    return reward === undefined ? turn : Object.freeze({ ...turn, reward });
  }
}
