/**
 * What the `spell loom` commands write from a loom: export, stats, tree, a thread. The room's face:
 * code outside src/loom/reading/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { exportLoom, exportLoomFile } from "./export-file.js";
export { exportJsonl } from "./export.js";
export { LoomStats, passAtK, passHatK } from "./stats.js";
export type { IntentStats } from "./stats.js";
export { formatTrajectory, threadLoom, trajectory } from "./thread-export.js";
export type { ThreadFormat } from "./thread-export.js";
export { loomTree, treeLines, treeTotal, treeTurn } from "./tree.js";
export type { TreeTurn } from "./tree.js";
