import type { LoomStore } from "./store-contract.js";
import type { LoomRecord, Turn } from "../records/index.js";

/**
 * Where loom records go, synchronously: the engine's write path (a `Loom` over a JSONL file or
 * memory). Appends only: there is no update and no delete (LOOM-3). The store seam for other
 * stores, asynchronous, is `LoomStore` (loom-store.ts), which wraps one of these today.
 */
export interface RecordStore {
  append(record: LoomRecord): void;
  /** A turn record (`type: "turn"`), without building a wrapper object first. */
  appendTurn(turn: Turn): void;
  /**
   * True when `load()` returns every record appended so far (a file): the loom then keeps
   * nothing in memory until it is read. False when the loom must keep the records itself.
   */
  readonly readsBack: boolean;
  /** Every record in the store, in order (for a store that reads back; else a seed, once). */
  load(): LoomRecord[];
  /** Closes the store; an asynchronous one resolves once what was queued is stored. */
  close(): void | Promise<void>;
  /**
   * An asynchronous store: resolves once every record so far is stored, rejecting with the
   * entity's failure (QueuedRecordStore).
   */
  stored?(entityId?: string): Promise<void> | undefined;
  /** A description for messages ("memory", a file path). */
  readonly location: string;
  /** The file the store appends to, when it is one: summoned entities are kept beside it. */
  readonly file?: string;
  /** What reading the store found worth saying (a file's torn pieces skipped). */
  readonly warnings?: readonly string[];
  /**
   * The asynchronous store the records are queued to, when they are (a database other processes
   * write too): what they recorded is read from it (QueuedRecordStore).
   */
  readonly shared?: LoomStore;
}

/** A loom kept in memory only: the loom's own index is the record. */
export class MemoryStore implements RecordStore {
  readonly location = "memory";
  readonly readsBack = false;
  append(_record: LoomRecord): void {}
  appendTurn(_turn: Turn): void {}
  load(): LoomRecord[] {
    return [];
  }
  close(): void {}
}
