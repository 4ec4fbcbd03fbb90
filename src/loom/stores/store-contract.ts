/**
 * The store contract's types (docs/design/LOOM-STORES.md): what every store a loom lives in
 * answers and takes. The stores themselves and `appendReward` are in loom-store.ts.
 */
import type { RecordPage, RecordReadOptions, StoredRecord } from "./record-pages.js";
import type { FoldNode, IdentityNode, Turn } from "../records/index.js";

/** A reward as a store keeps it: a record of its own (LOOM-3), with the reason given. */
export type RewardRecord = Extract<StoredRecord, { type: "reward" }>;

/** One entity as a store lists it. */
export interface EntitySummary {
  entityId: string;
  cantripId: string;
  /** How many turns the entity has. */
  turns: number;
  firstTurnId: string;
  lastTurnId: string;
}

/**
 * What every store answers about the loom it holds (docs/design/LOOM-STORES.md, "Reading"): the
 * commands (`spell loom …`, `spell view`) and the queue read a loom through this alone, whatever
 * holds it (`openLoom`, open-loom.ts, turns a location into a store). Reads give turns with their
 * latest reward applied, frozen.
 */
export interface LoomReadStore {
  /** A description for messages ("memory", a file path, a database without its password). */
  readonly location: string;
  /** The file the loom is, when it is one (the viewer reads its lines; a fork writes beside it). */
  readonly file?: string | undefined;
  /**
   * Every record in append order, a page at a time (bounded memory whatever the loom's size),
   * the next page read only when asked for; from `from` (a page's `next`): only the records
   * stored after that page. A cantrip's identity comes once.
   */
  recordPages(from?: number, options?: RecordReadOptions): AsyncIterable<RecordPage>;
  /** One turn by its id, or undefined when the loom does not hold it. */
  turn(turnId: string): Promise<Turn | undefined>;
  /** The path root → `turnId` (LOOM-10); rejects with `loom_unknown_turn` for a turn not held. */
  readThread(turnId: string): Promise<Turn[]>;
  /** An entity's turns in append order ([] for an entity without turns). */
  readEntity(entityId: string): Promise<Turn[]>;
  /** Every entity with turns, once, in the order of its first turn. */
  listEntities(): Promise<EntitySummary[]>;
  /** The latest reward of each rewarded turn. */
  rewards(): Promise<ReadonlyMap<string, number>>;
  /** The reward records (with their reasons) of these turns, in append order. */
  rewardRecords(turnIds: readonly string[]): Promise<RewardRecord[]>;
  /** The folds recorded, in order; of one entity when `entityId` is given (§6.8). */
  folds(entityId?: string): Promise<FoldNode[]>;
  /** A cantrip's identity root (IDENTITY-4), when recorded. */
  identity(cantripId: string): Promise<IdentityNode | undefined>;
  /**
   * The entities summoned from this spell file (resolved), the most recently noted last
   * (`spell summon --continue`), when the store keeps that list (PostgreSQL; a loom file keeps
   * it in its state file beside it).
   */
  entitiesOfSpell?(spell: string): Promise<string[]>;
  /** The spell file first noted for the entity (`noteEntitySpell`), where the store keeps that. */
  spellOfEntity?(entityId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * The seam for the stores a loom lives in (a JSONL file, memory, PostgreSQL): the read side and
 * appends. Every method returns a promise: a store across a network cannot answer synchronously.
 * The contract (tests/loom/store-contract.ts, run by every store):
 * - `append` is idempotent by id: a turn, an identity or a fold whose id is already stored is
 *   not stored again and resolves false (the first stays); so a writer that lost the answer to
 *   an append may send it again. A reward is a record of its own (LOOM-3): the latest wins;
 * - a turn may be appended before the turn it hangs from (a child's turns — COMP-5);
 * - reads give turns with their latest reward applied, frozen.
 */
export interface LoomStore extends LoomReadStore {
  /** Stores one record; false when a record with its id was already there. */
  append(record: StoredRecord): Promise<boolean>;
  /**
   * Notes that a summon of this spell file (resolved) started or continued the entity now (what
   * `entitiesOfSpell` answers). An entity keeps the spell first noted for it, as a state file's
   * entry does.
   */
  noteEntitySpell?(entityId: string, spell: string): Promise<void>;
}
