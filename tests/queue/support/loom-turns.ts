/** Every turn in a PostgreSQL loom, by entity, in sequence order (the fault tests' check). */
import { postgresLoomStore } from "../../../src/loom/postgres/index.js";
import type { Turn } from "../../../src/loom/records/index.js";

export async function loomTurns(databaseUrl: string): Promise<Map<string, Turn[]>> {
  const store = postgresLoomStore(databaseUrl);
  try {
    const byEntity = new Map<string, Turn[]>();
    for (const e of await store.listEntities())
      byEntity.set(e.entityId, await store.readEntity(e.entityId));
    return byEntity;
  } finally {
    await store.close();
  }
}
