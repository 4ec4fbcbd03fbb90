import { LoomIndex } from "./loom-index.js";
import { JsonlStore, type JsonlStoreOptions } from "./storage-jsonl.js";
import { MemoryStore, type RecordStore } from "./store.js";
import type { FoldNode, IdentityNode, LoomRecord, Turn } from "./turn.js";

/** A record a store keeps: everything but the file's own header and its tear marks. */
export type StoredRecord = Exclude<LoomRecord, { type: "loom" } | { type: "torn" }>;

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
 * The seam for the stores a loom lives in (JSONL today, PostgreSQL in the scale-out issue).
 * Every method returns a promise: a store across a network cannot answer synchronously.
 * The contract (tests/loom/store-contract.ts, run by every store):
 * - `append` is idempotent by id: a turn, an identity or a fold whose id is already stored is
 *   not stored again and resolves false (the first stays); so a writer that lost the answer to
 *   an append may send it again. A reward is a record of its own (LOOM-3): the latest wins;
 * - a turn may be appended before the turn it hangs from (a child's turns — COMP-5);
 * - reads give turns with their latest reward applied, frozen.
 */
export interface LoomStore {
  /** A description for messages ("memory", a file path, a database). */
  readonly location: string;
  /** Stores one record; false when a record with its id was already there. */
  append(record: StoredRecord): Promise<boolean>;
  /** The path root → `turnId` (LOOM-10); rejects with `loom_unknown_turn` for a turn not held. */
  readThread(turnId: string): Promise<Turn[]>;
  /** An entity's turns in append order ([] for an entity without turns). */
  readEntity(entityId: string): Promise<Turn[]>;
  /** Every entity with turns, once, in the order of its first turn. */
  listEntities(): Promise<EntitySummary[]>;
  /** The latest reward of each rewarded turn. */
  rewards(): Promise<ReadonlyMap<string, number>>;
  /** The folds recorded, in order; of one entity when `entityId` is given (§6.8). */
  folds(entityId?: string): Promise<FoldNode[]>;
  /** A cantrip's identity root (IDENTITY-4), when recorded. */
  identity(cantripId: string): Promise<IdentityNode | undefined>;
  close(): Promise<void>;
}

/**
 * A LoomStore over a synchronous `RecordStore` (a JSONL file, memory): the first implementation
 * of the seam. Its index is read from the store on first use (a file's records) and kept current
 * with its own appends; records another process appends later are seen by a store opened after
 * them (a `Loom` rereads where it must: `holdEntity`).
 */
export class RecordLoomStore implements LoomStore {
  private indexed: LoomIndex | null;
  private foldIds: Set<string> | null = null;

  constructor(private readonly records: RecordStore) {
    this.indexed = records.readsBack ? null : new LoomIndex();
  }

  get location(): string {
    return this.records.location;
  }

  append(record: StoredRecord): Promise<boolean> {
    return settle(() => this.store(record));
  }

  readThread(turnId: string): Promise<Turn[]> {
    return settle(() => {
      const index = this.index;
      return index.path(turnId).map((t) => index.rewarded(t));
    });
  }

  readEntity(entityId: string): Promise<Turn[]> {
    return settle(() => {
      const index = this.index;
      return index.order.filter((t) => t.entity_id === entityId).map((t) => index.rewarded(t));
    });
  }

  listEntities(): Promise<EntitySummary[]> {
    return settle(() => this.entities());
  }

  rewards(): Promise<ReadonlyMap<string, number>> {
    return settle(() => new Map(this.index.rewards));
  }

  folds(entityId?: string): Promise<FoldNode[]> {
    return settle(() => {
      const all = this.index.folds;
      return entityId === undefined ? [...all] : all.filter((f) => f.entity_id === entityId);
    });
  }

  identity(cantripId: string): Promise<IdentityNode | undefined> {
    return settle(() => this.index.identities.get(cantripId));
  }

  close(): Promise<void> {
    return settle(() => this.records.close()).then(() => undefined);
  }

  private store(record: StoredRecord): boolean {
    const index = this.index;
    if (this.holds(index, record)) return false;
    if (record.type === "turn") {
      const { type: _type, ...turn } = record;
      this.records.appendTurn(turn); // stored first: a failed write leaves the index untouched
      index.addTurn(Object.freeze(turn));
      return true;
    }
    this.records.append(record);
    index.add(record);
    if (record.type === "fold") this.foldIds?.add(record.id);
    return true;
  }

  private entities(): EntitySummary[] {
    const byEntity = new Map<string, EntitySummary>();
    for (const t of this.index.order) {
      const seen = byEntity.get(t.entity_id);
      if (seen) {
        seen.turns++;
        seen.lastTurnId = t.id;
      } else {
        byEntity.set(t.entity_id, {
          entityId: t.entity_id,
          cantripId: t.cantrip_id,
          turns: 1,
          firstTurnId: t.id,
          lastTurnId: t.id,
        });
      }
    }
    return [...byEntity.values()];
  }

  /** Whether a record with this one's id is stored already (rewards have none: never). */
  private holds(index: LoomIndex, record: StoredRecord): boolean {
    switch (record.type) {
      case "turn":
        return index.turnsById.has(record.id);
      case "identity":
        return index.identities.has(record.cantrip_id);
      case "fold":
        this.foldIds ??= new Set(index.folds.map((f) => f.id));
        return this.foldIds.has(record.id);
      case "reward":
        return false;
    }
  }

  private get index(): LoomIndex {
    if (!this.indexed) {
      const index = new LoomIndex();
      for (const record of this.records.load()) index.add(record);
      this.indexed = index;
    }
    return this.indexed;
  }
}

/** A synchronous answer as a promise: what it throws becomes the promise's rejection. */
function settle<T>(answer: () => T): Promise<T> {
  try {
    return Promise.resolve(answer());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** The JSONL file store behind the seam (options as JsonlStore's: fsync, redact at rest). */
export function jsonlLoomStore(path: string, options: JsonlStoreOptions = {}): LoomStore {
  return new RecordLoomStore(new JsonlStore(path, options));
}

/** A store kept in memory only, for the life of the process. */
export function memoryLoomStore(): LoomStore {
  return new RecordLoomStore(new MemoryStore());
}
