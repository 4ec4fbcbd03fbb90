/**
 * The JSONL loom format: its codec and line reader, records read from text, and the file locks. The
 * room's face: code outside src/loom/jsonl/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { decodeRecord, encodeTurn, turnJson } from "./jsonl-codec.js";
export { forEachLine } from "./jsonl-lines.js";
export { loomItems, readLoomFile, readRecords, tornMessage } from "./jsonl-read.js";
export type { LoomReadResult } from "./jsonl-read.js";
export { takeLock } from "./lock-file.js";
