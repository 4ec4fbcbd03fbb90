import { randomUUID } from "node:crypto";

/** Unique ids for entities, turns and cantrips (ENTITY-2, LOOM-2). */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
}
