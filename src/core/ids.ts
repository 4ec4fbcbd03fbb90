import { randomBytes } from "node:crypto";

// A random prefix per process plus a counter: unique across processes writing one loom
// (48 random bits) and cheap enough for the per-turn hot path.
const PROCESS = randomBytes(6).toString("hex");
let counter = 0;

/** Unique ids for entities, turns and cantrips (ENTITY-2, LOOM-2). */
export function newId(prefix: string): string {
  return `${prefix}_${PROCESS}${(++counter).toString(36).padStart(6, "0")}`;
}
