import type { Loom } from "./loom.js";
import type { LoomStore } from "../stores/index.js";
import type { LoomRecord } from "../records/index.js";

/**
 * An entity's records read back from an asynchronous store (PostgreSQL), so a `Loom` in another
 * process can continue it (`Loom.absorb`, then `cast(intent, { resumeEntity })`): the thread
 * root → the entity's last turn (a child's thread starts in its parent's turns), with each turn's
 * latest reward, and the entity's folds. An entity without turns gives nothing: a fresh start.
 */
export async function entityRecords(store: LoomStore, entityId: string): Promise<LoomRecord[]> {
  const last = (await store.readEntity(entityId)).at(-1);
  if (!last) return [];
  const [thread, folds] = await Promise.all([store.readThread(last.id), store.folds(entityId)]);
  return [
    ...thread.map((t): LoomRecord => ({ type: "turn", ...t })),
    ...folds.map((f): LoomRecord => ({ type: "fold", ...f })),
  ];
}

/**
 * An entity another process recorded, read into `loom` before it is continued (`spell summon
 * --entity`), when the loom's records go to a store other processes write too (a database); a
 * file is read back by the loom itself, memory is this process's alone: nothing to do.
 */
export async function readEntityInto(loom: Loom, entityId: string): Promise<void> {
  const { shared } = loom.store;
  if (shared) loom.absorb(await entityRecords(shared, entityId));
}

/**
 * The thread root → `turnId`, with the folds of its entities, read into `loom` before a fork from
 * that turn (`spell loom fork` on a database's loom); nothing to do for a file or memory.
 */
export async function readThreadInto(loom: Loom, turnId: string): Promise<void> {
  const { shared } = loom.store;
  if (!shared) return;
  const thread = await shared.readThread(turnId);
  const entities = [...new Set(thread.map((t) => t.entity_id))];
  const folds = (await Promise.all(entities.map((e) => shared.folds(e)))).flat();
  loom.absorb([
    ...thread.map((t): LoomRecord => ({ type: "turn", ...t })),
    ...folds.map((f): LoomRecord => ({ type: "fold", ...f })),
  ]);
}
