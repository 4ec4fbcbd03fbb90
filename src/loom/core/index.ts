/**
 * The loom: Loom and LoomReader, an entity's records read back, forks. The room's face: code
 * outside src/loom/core/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export { readEntityInto, readThreadInto } from "./entity-read.js";
export { fork, forkPath } from "./fork.js";
export type { ForkOptions } from "./fork.js";
export { Loom } from "./loom.js";
