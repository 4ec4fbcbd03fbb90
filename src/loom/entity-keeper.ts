/**
 * How a loom keeps its summoned entities (ENTITY-5 across processes). A file loom registers
 * each summoned entity in its state file (entity-state.ts) and holds it with a lock file while
 * it lives: two summons of the same entity, in one process or two, would each hang their next
 * turn from the same last turn and split its thread without anyone asking for a fork, so the
 * second waits a bounded time and then fails ("entity … is in use by pid N"). Different
 * entities never wait for each other: their turns are appended to the JSONL file without a
 * lock (one O_APPEND write per record, LIMITS.md). A memory loom keeps the same rules in memory.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isoNow } from "../core/clock.js";
import { ConfigError, SystemError } from "../core/errors.js";
import type { EntityInfo, EntityLease } from "../core/loom-writer.js";
import { entityEntry, EntityState } from "./entity-state.js";
import { takeLock } from "./lock-file.js";

/** The files kept beside a loom file `dir/name.jsonl`: `dir/name.state.json`, `dir/name.locks/`. */
export function entityFiles(loomPath: string): { state: string; locks: string } {
  const name = basename(loomPath).replace(/\.jsonl$/, "");
  return {
    state: join(dirname(loomPath), `${name}.state.json`),
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
  /** True when the loom has turns of the entity. */
  inLoom: boolean;
  /** How long to wait for another summon of the same entity to let go. */
  waitMs: number;
}

/** Registers the entity in the state file and holds its lock; see the module comment. */
export async function holdFileEntity(request: HoldRequest): Promise<EntityLease> {
  const { loomPath, entityId, info, inLoom, waitMs } = request;
  checkEntityId(entityId);
  const files = entityFiles(loomPath);
  const release = await takeLock(join(files.locks, `${entityId}.lock`), {
    waitMs,
    busy: (pid) =>
      new SystemError(
        "loom_in_use",
        `entity ${entityId} of loom ${loomPath} is in use by pid ${pid}${pid === process.pid ? " (this process)" : ""}: another summon is continuing it (waited ${waitMs} ms)`,
      ),
  });
  try {
    const state = await EntityState.open(files.state);
    await state.change((data) => {
      const now = isoNow();
      const entry = data.entities[entityId];
      if (entry) entry.updated = now;
      else if (info.resumed && !inLoom) throw unknownEntity(entityId, loomPath);
      else data.entities[entityId] = entityEntry(info, now);
    });
    return {
      update: (lastTurnId) =>
        state
          .change((data) => {
            const entry = (data.entities[entityId] ??= entityEntry(info, isoNow()));
            entry.updated = isoNow();
            entry.last_turn_id = lastTurnId;
            entry.sends += 1;
          })
          // The turns are in the loom already; the index catches up at the next send.
          .catch((err: unknown) =>
            process.emitWarning(`${files.state}: not updated: ${(err as Error).message}`),
          ),
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
  const state = await EntityState.open(entityFiles(loomPath).state);
  await state.recordSession(protocol, sessionId, entityId);
}

/** The entity a protocol session recorded beside the loom file speaks to, if any. */
export async function sessionEntity(
  loomPath: string,
  protocol: string,
  sessionId: string,
): Promise<string | undefined> {
  const { state } = entityFiles(loomPath);
  if (!existsSync(state)) return undefined;
  const entry = (await (await EntityState.open(state)).read()).sessions[sessionId];
  return entry?.protocol === protocol ? entry.entity_id : undefined;
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
