/**
 * Where a loom lives: the store contract (writing and reading), the memory and JSONL stores. The
 * room's face: code outside src/loom/stores/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { appendReward, jsonlLoomStore, memoryLoomStore } from "./loom-store.js";
export type {
  EntitySummary,
  LoomReadStore,
  LoomStore,
  RewardRecord,
  StoredRecord,
} from "./loom-store.js";
export { eachRecord, recordBytes } from "./record-pages.js";
export type { RecordPage, RecordReadOptions } from "./record-pages.js";
export { JsonlStore, readLoomFile } from "./storage-jsonl.js";
export type { JsonlStoreOptions } from "./storage-jsonl.js";
export { QueuedRecordStore } from "./store-queued.js";
export { MemoryStore } from "./store.js";
export type { RecordStore } from "./store.js";
