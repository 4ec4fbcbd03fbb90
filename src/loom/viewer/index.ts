/**
 * What the web viewer (`spell view`) reads of a loom: its index, entities, trees. The room's face:
 * code outside src/loom/viewer/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export type { ViewEntity } from "./entity.js";
export { LoomViewIndex } from "./index-file.js";
export type { ViewIndex } from "./index-file.js";
export { StoreViewIndex } from "./store-index.js";
export { TreeLayout, entityLayout, entityRows, threadRows } from "./tree.js";
export type { FoldRow, TurnRow, ViewRow } from "./tree.js";
