/**
 * How a loom keeps its summoned entities (ENTITY-5 across processes). A file loom registers
 * each summoned entity in its state file (entity-state.ts) and holds it with a lock file while
 * it lives (lock-file.ts): two summons of the same entity, in one process or two, would each
 * hang their next turn from the same last turn and split its thread without anyone asking for
 * a fork, so the second waits a bounded time and then fails ("entity … is in use by pid N").
 * The thread is read only once the lock is held (`inLoom` is asked then, and the summon builds
 * its context after). Different entities never wait for each other: their turns are appended
 * to the JSONL file without a lock (one O_APPEND write per record, LIMITS.md). A memory loom
 * keeps the same rules in memory.
 */
import { basename, dirname, join } from "node:path";
import { ConfigError, SystemError } from "../../core/errors.js";
import type { EntityInfo, EntityLease } from "../../core/loom-writer.js";
import { entityLine, stateIndex } from "./entity-state.js";
import { takeLock } from "../jsonl/index.js";

/** The files kept beside a loom file `dir/name.jsonl`: `dir/name.state.jsonl`, `dir/name.locks/`. */
export function entityFiles(loomPath: string): { state: string; locks: string } {
  const name = basename(loomPath).replace(/\.jsonl$/, "");
  return {
    state: join(dirname(loomPath), `${name}.state.jsonl`),
    locks: join(dirname(loomPath), `${name}.locks`),
  };
}

/** Entity ids name lock files: letters, digits, `_` and `-` only. */
const ENTITY_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function checkEntityId(entityId: string): void {
  if (!ENTITY_ID.test(entityId))
    throw new ConfigError(
      "bad_entity_id",
      `${JSON.stringify(entityId)} is not an entity id (letters, digits, _ and - only)`,
    );
}

export interface HoldRequest {
  loomPath: string;
  entityId: string;
  info: EntityInfo;
  /** True when the loom has turns of the entity: asked once the entity is held. */
  inLoom: () => boolean;
  /** How long to wait for another summon of the same entity to let go. */
  waitMs: number;
}

/** Registers the entity in the state file and holds its lock; see the module comment. */
export async function holdFileEntity(request: HoldRequest): Promise<EntityLease> {
  const { loomPath, entityId, info, waitMs } = request;
  checkEntityId(entityId);
  const files = entityFiles(loomPath);
  const lock = join(files.locks, `${entityId}.lock`);
  const release = await takeLock(lock, {
    waitMs,
    busy: (pid, holder) =>
      new SystemError(
        "loom_in_use",
        `entity ${entityId} of loom ${loomPath} is in use by pid ${pid}${pid === process.pid ? " (this process)" : holder}: another summon is continuing it (waited ${waitMs} ms). If pid ${pid} is not a summon of this entity (it ended, or the pid now belongs to another program), end that process or remove ${lock}`,
      ),
  });
  try {
    const inLoom = request.inLoom(); // asked now: the thread as it is once held
    const state = stateIndex(files.state, loomPath);
    if (!state.entity(entityId)) {
      if (info.resumed && !inLoom) throw unknownEntity(entityId, loomPath);
      state.add(entityLine(entityId, info));
    }
    return {
      update: (lastTurnId) => {
        try {
          state.add({ type: "send", id: entityId, last_turn_id: lastTurnId });
        } catch (err) {
          // The turns are in the loom already; the index can be rebuilt from it.
          process.emitWarning(`${files.state}: not updated: ${(err as Error).message}`);
        }
        return Promise.resolve();
      },
      release,
    };
  } catch (err) {
    release();
    throw err;
  }
}

/** Records, beside a loom file, which entity a protocol session (HTTP, ACP) speaks to. */
export async function recordSession(
  loomPath: string,
  protocol: string,
  sessionId: string,
  entityId: string,
): Promise<void> {
  const state = stateIndex(entityFiles(loomPath).state, loomPath);
  await Promise.resolve(
    state.add({ type: "session", id: sessionId, protocol, entity_id: entityId }),
  );
}

/** The entity a protocol session recorded beside the loom file speaks to, if any. */
export async function sessionEntity(
  loomPath: string,
  protocol: string,
  sessionId: string,
): Promise<string | undefined> {
  const entry = await Promise.resolve(
    stateIndex(entityFiles(loomPath).state, loomPath).session(sessionId),
  );
  return entry?.protocol === protocol ? entry.entity_id : undefined;
}

/** The state beside a loom file, as its lines add up now (for tools and tests). */
export function readState(loomPath: string) {
  return stateIndex(entityFiles(loomPath).state, loomPath).data();
}

/** The same rules for a loom kept in memory: one process, so a set of held ids is the lock. */
export class MemoryKeeper {
  private readonly known = new Set<string>();
  private readonly holding = new Set<string>();

  hold(entityId: string, info: EntityInfo, inLoom: boolean): Promise<EntityLease> {
    if (this.holding.has(entityId))
      return Promise.reject(
        new SystemError(
          "loom_in_use",
          `entity ${entityId} is in use by pid ${process.pid} (this process): another summon is continuing it`,
        ),
      );
    if (info.resumed && !inLoom && !this.known.has(entityId))
      return Promise.reject(unknownEntity(entityId, "memory"));
    this.known.add(entityId);
    this.holding.add(entityId);
    return Promise.resolve({
      update: () => Promise.resolve(),
      release: () => void this.holding.delete(entityId),
    });
  }
}

function unknownEntity(entityId: string, loom: string): ConfigError {
  return new ConfigError(
    "unknown_entity",
    `no entity ${entityId} in loom ${loom}: it was never summoned against this loom`,
  );
}
