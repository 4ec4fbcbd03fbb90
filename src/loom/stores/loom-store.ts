import { isoNow } from "../../core/clock.js";
import { ConfigError } from "../../core/errors.js";
import { LoomIndex } from "../records/index.js";
import {
  filePages,
  listPages,
  type RecordPage,
  type RecordReadOptions,
  type StoredRecord,
} from "./record-pages.js";
import { JsonlStore, type JsonlStoreOptions } from "./storage-jsonl.js";
import { MemoryStore, type RecordStore } from "./store.js";
import type { EntitySummary, LoomStore, RewardRecord } from "./store-contract.js";
import type { FoldNode, IdentityNode, Turn } from "../records/index.js";

export type { RecordPage, RecordReadOptions, StoredRecord } from "./record-pages.js";
export type { EntitySummary, LoomReadStore, LoomStore, RewardRecord } from "./store-contract.js";

/**
 * A reward appended to a turn of the store, as `Loom.annotateReward` appends one: refused
 * (`bad_reward`, `loom_unknown_turn`) before anything is written.
 */
export async function appendReward(
  store: LoomStore,
  turnId: string,
  reward: number,
  reason?: string,
): Promise<void> {
  if (!(await store.turn(turnId)))
    throw new ConfigError("loom_unknown_turn", `no turn ${turnId} in the loom`);
  if (!Number.isFinite(reward))
    throw new ConfigError("bad_reward", "reward must be a finite number");
  const record: RewardRecord = { type: "reward", turn_id: turnId, reward, timestamp: isoNow() };
  if (reason !== undefined) record.reason = reason;
  await store.append(record);
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
  /** Every record, in order, for a store that does not read back (memory). */
  private readonly log: StoredRecord[] | null;

  constructor(private readonly records: RecordStore) {
    this.indexed = records.readsBack ? null : new LoomIndex();
    this.log = records.readsBack ? null : [];
  }

  get location(): string {
    return this.records.location;
  }

  get file(): string | undefined {
    return this.records.file;
  }

  /** A file is read anew (what other processes appended since is in it); memory, as it is. */
  recordPages(from = 0, options: RecordReadOptions = {}): AsyncIterable<RecordPage> {
    const { file } = this.records;
    if (file !== undefined) return filePages(file, from, options);
    return listPages(this.log ?? this.records.load(), from);
  }

  turn(turnId: string): Promise<Turn | undefined> {
    return settle(() => {
      const found = this.index.turnsById.get(turnId);
      return found && this.index.rewarded(found);
    });
  }

  rewardRecords(turnIds: readonly string[]): Promise<RewardRecord[]> {
    return settle(() => {
      const wanted = new Set(turnIds);
      return this.index.rewardLog.filter((r) => wanted.has(r.turn_id));
    });
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
      this.log?.push(record);
      return true;
    }
    this.records.append(record);
    index.add(record);
    this.log?.push(record);
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
