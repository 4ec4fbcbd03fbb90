/**
 * What the web viewer (`spell view`) reads of a loom: its index, entities, trees. The room's face:
 * code outside src/loom/viewer/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export type { ViewerEntity } from "./entity.js";
export { LoomViewerIndex } from "./index-file.js";
export type { ViewerIndex } from "./index-file.js";
export { StoreViewerIndex } from "./store-index.js";
export { TreeLayout, entityLayout, entityRows, threadRows } from "./tree.js";
export type { FoldRow, TurnRow, ViewerRow } from "./tree.js";
