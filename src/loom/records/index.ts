/**
 * The loom's records: turns and their shapes, the index of a loom's turns, a thread's context
 * rebuilt from them. The room's face: code outside src/loom/records/ imports only this file
 * (.dependency-cruiser.cjs, "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { LoomIndex } from "./loom-index.js";
export { INTERRUPTIONS, cutOff } from "./recorded-cast.js";
export { forkPath, rebuildMessages, rebuildTurn, resumePoint } from "./thread-context.js";
export { LOOM_FORMAT_VERSION, turnRecord } from "./turn.js";
export type { FoldNode, IdentityNode, LoomRecord, Turn } from "./turn.js";
