/**
 * The JSONL loom file: its codec and line reader, the file store, the file locks. The room's face:
 * code outside src/loom/jsonl/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { decodeRecord } from "./jsonl-codec.js";
export { forEachLine } from "./jsonl-lines.js";
export { loomItems, readLoomFile, readRecords, tornMessage } from "./jsonl-read.js";
export { takeLock } from "./lock-file.js";
export { JsonlStore } from "./storage-jsonl.js";
export type { JsonlStoreOptions } from "./storage-jsonl.js";
