// A random prefix per process plus a counter: unique across processes writing one loom
// (48 random bits) and cheap enough for the per-turn hot path. The bits come from Math.random,
// which V8 seeds from the operating system's entropy in each process: ids must be unique, not
// secret (the counter makes every id of a process known from one), and node:crypto would cost
// `spell run` ~2 ms of start-up to load (ARCHITECTURE.md "Start-up").
const random24 = (): string =>
  Math.floor(Math.random() * 0x1000000)
    .toString(16)
    .padStart(6, "0");
const PROCESS = random24() + random24();
let counter = 0;

/** Unique ids for entities, turns and cantrips (ENTITY-2, LOOM-2). */
export function newId(prefix: string): string {
  return `${prefix}_${PROCESS}${(++counter).toString(36).padStart(6, "0")}`;
}

/**
 * A fresh entity id, to name a cast before it starts (`cast(intent, { resumeEntity })`): a queue
 * job or a CLI run can then continue the same cast after a crash, under the same id.
 */
export const newEntityId = (): string => newId("ent");
