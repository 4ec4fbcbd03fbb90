/**
 * A loom opened by its location: a file path or a postgres:// URL, the store behind it. The room's
 * face: code outside src/loom/open/ imports only this file (.dependency-cruiser.cjs,
 * "loom-rooms-through-index"); it re-exports what that code uses.
 */
export {
  loomSecrets,
  openLoom,
  openRecordStore,
  portableLoom,
  sameSharedLoom,
  sharedLoom,
  shownLoom,
} from "./open-loom.js";
