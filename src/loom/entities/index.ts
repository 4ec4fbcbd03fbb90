/**
 * Entities' state kept beside a loom: which process holds which entity. The room's face: code
 * outside src/loom/entities/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export {
  MemoryKeeper,
  checkEntityId,
  entityFiles,
  holdFileEntity,
  readState,
  recordSession,
  sessionEntity,
} from "./entity-keeper.js";
