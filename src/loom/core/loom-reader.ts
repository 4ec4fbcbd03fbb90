import type { RecordStore } from "../stores/index.js";
import { LoomIndex } from "../records/index.js";
import type { FoldNode, IdentityNode, LoomRecord, Turn } from "../records/index.js";

/**
 * The read side of a `Loom` (loom.ts, which appends): the in-memory index of the store's records
 * and what it answers — turns, threads, leaves, folds, identities, rewards.
 *
 * A store that reads its records back (a JSONL file) is the loom's memory: appending only
 * writes, and the in-memory index is built from the store when the loom is first read — so
 * neither a long cast nor a long history on disk costs memory or start-up time until someone
 * asks. A store that cannot read back (memory) is indexed as records arrive.
 */
export class LoomReader {
  protected indexed: LoomIndex | null;

  constructor(readonly store: RecordStore) {
    this.indexed = store.readsBack ? null : indexOf(store.load());
  }

  get size(): number {
    return this.index.order.length;
  }

  /** Every fold recorded, in order; of one entity when `entityId` is given. */
  folds(entityId?: string): FoldNode[] {
    const all = this.index.folds;
    return entityId === undefined ? [...all] : all.filter((f) => f.entity_id === entityId);
  }

  identity(cantripId: string): IdentityNode | undefined {
    return this.index.identities.get(cantripId);
  }

  /** The reason given with the turn's last reward, when one was. */
  rewardReason(turnId: string): string | undefined {
    return this.index.rewardReasons.get(turnId);
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
    return this.index.path(leafId).map((t) => this.withReward(t));
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

  /** The entity's last turn in append order (ENTITY-5: where a resumed summon continues). */
  lastTurnOf(entityId: string): Turn | undefined {
    const { order } = this.index;
    for (let i = order.length - 1; i >= 0; i--)
      if (order[i]!.entity_id === entityId) return this.withReward(order[i]!);
    return undefined;
  }

  /**
   * Records read back from an asynchronous store (entity-read.ts: an entity another process
   * recorded, to continue it): indexed, not written again; turns and folds already known are
   * skipped, so absorbing the same entity twice changes nothing.
   */
  absorb(records: readonly LoomRecord[]): void {
    const index = this.index;
    for (const r of records) {
      if (r.type === "turn" && index.turnsById.has(r.id)) continue;
      if (r.type === "fold" && index.folds.some((f) => f.id === r.id)) continue;
      index.add(r);
    }
  }

  /** The next read reads the store again (another process may have written to it since). */
  protected reread(): this {
    if (this.store.readsBack) this.indexed = null;
    return this;
  }

  /** The in-memory index, read from the store on first use. */
  protected get index(): LoomIndex {
    if (!this.indexed) {
      const index = new LoomIndex();
      for (const record of this.store.load()) index.add(record);
      this.indexed = index;
    }
    return this.indexed;
  }

  private withReward(turn: Turn): Turn {
    const reward = this.indexed?.rewards.get(turn.id);
    return reward === undefined ? turn : Object.freeze({ ...turn, reward });
  }
}

/** A store that does not read back hands the loom its records once, at the start (a seed). */
function indexOf(records: readonly LoomRecord[]): LoomIndex {
  const index = new LoomIndex();
  for (const record of records) index.add(record);
  return index;
}
