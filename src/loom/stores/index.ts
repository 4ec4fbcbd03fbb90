/**
 * Where a loom lives: the store contract (writing and reading), the memory and JSONL stores. The
 * room's face: code outside src/loom/stores/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { jsonlLoomStore, memoryLoomStore } from "./loom-store.js";
export type { EntitySummary, LoomStore, StoredRecord } from "./loom-store.js";
export { JsonlStore, readLoomFile, readRecords } from "./storage-jsonl.js";
export type { JsonlStoreOptions } from "./storage-jsonl.js";
export { QueuedRecordStore } from "./store-queued.js";
export { MemoryStore } from "./store.js";
export type { RecordStore } from "./store.js";
