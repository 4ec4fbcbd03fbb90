/**
 * The PostgreSQL loom store. The room's face: code outside src/loom/postgres/ imports only this
 * file (.dependency-cruiser.cjs, "loom-rooms-through-index"); it re-exports what that code uses.
 */
export {
  isPostgresUrl,
  redactUrl,
  urlSecrets,
  urlWithoutSecrets,
  withoutUrlSecrets,
} from "./postgres-connection.js";
export { importLoom, importLoomFile } from "./postgres-records.js";
export { SCHEMA_VERSION } from "./postgres-schema.js";
export { postgresLoomStore } from "./storage-postgres.js";
