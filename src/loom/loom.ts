import { ConfigError } from "../core/errors.js";
import { isoNow } from "../core/clock.js";
import { MemoryStore, type LoomStore } from "./store.js";
import type { IdentityNode, LoomRecord, Turn } from "./turn.js";

/**
 * The append-only tree of every turn (chapter 6). Turns link to parents; a thread is any
 * root-to-leaf path. Records reach the store as they are appended (LOOM-1).
 */
export class Loom {
  private readonly turnsById = new Map<string, Turn>();
  private readonly order: Turn[] = [];
  private readonly identities = new Map<string, IdentityNode>();
  private readonly rewards = new Map<string, number>();

  constructor(readonly store: LoomStore = new MemoryStore()) {
    for (const record of store.load()) this.index(record);
  }

  get size(): number {
    return this.order.length;
  }

  /** Records the identity root of a cantrip once (IDENTITY-4). */
  recordIdentity(node: IdentityNode): void {
    if (this.identities.has(node.cantrip_id)) return;
    this.write({ type: "identity", ...node });
  }

  identity(cantripId: string): IdentityNode | undefined {
    return this.identities.get(cantripId);
  }

  /**
   * Appends a turn. Its parent may be recorded later: a child's root turn hangs from the turn
   * that spawned it (COMP-5), which is appended only when it ends — after the child's turns.
   */
  append(turn: Turn): void {
    if (this.turnsById.has(turn.id)) {
      throw new ConfigError(
        "loom_append_only",
        `loom is append-only: turn ${turn.id} already exists`,
      );
    }
    // The hot path: the store writes the turn as is; the index keeps the same frozen object.
    this.store.appendTurn(turn);
    this.indexTurn(Object.freeze(turn));
  }

  /** LOOM-3's one exception: a reward, appended as its own record, never by rewriting. */
  annotateReward(turnId: string, reward: number): void {
    if (!this.turnsById.has(turnId))
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
    const turn = this.turnsById.get(turnId);
    return turn && this.withReward(turn);
  }

  /** Every turn in append order. */
  turns(): Turn[] {
    return this.order.map((t) => this.withReward(t));
  }

  /** The path root → leaf ending at `leafId` (LOOM-10). */
  thread(leafId: string): Turn[] {
    const path: Turn[] = [];
    const seen = new Set<string>();
    for (
      let t = this.turnsById.get(leafId);
      t;
      t = t.parent_id ? this.turnsById.get(t.parent_id) : undefined
    ) {
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
    // Computed when asked rather than counted on every append: the append is the hot path.
    const parents = new Set<string>();
    for (const t of this.order) if (t.parent_id) parents.add(t.parent_id);
    return this.order.filter((t) => !parents.has(t.id)).map((t) => this.withReward(t));
  }

  threads(): Turn[][] {
    return this.leaves().map((leaf) => this.thread(leaf.id));
  }

  children(turnId: string): Turn[] {
    return this.order.filter((t) => t.parent_id === turnId).map((t) => this.withReward(t));
  }

  close(): void {
    this.store.close();
  }

  private write(record: LoomRecord): void {
    this.store.append(record); // on disk first: a failed write leaves the index untouched
    this.index(record);
  }

  private index(record: LoomRecord): void {
    switch (record.type) {
      case "identity": {
        const { type: _type, ...node } = record;
        this.identities.set(node.cantrip_id, Object.freeze(node));
        break;
      }
      case "turn": {
        const { type: _type, ...turn } = record;
        this.indexTurn(Object.freeze(turn));
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

  private indexTurn(turn: Turn): void {
    this.turnsById.set(turn.id, turn);
    this.order.push(turn);
  }

  private withReward(turn: Turn): Turn {
    const reward = this.rewards.get(turn.id);
    return reward === undefined ? turn : Object.freeze({ ...turn, reward });
  }
}
