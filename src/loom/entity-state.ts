/**
 * The loom's small durable state beside its JSONL file (lowdb): which entities were summoned
 * against it, the spell and cantrip they came from, their last turn, and the protocol sessions
 * that speak to them. Turns stay in the JSONL file, which is the truth: this is an index, and
 * an entity whose turns are in the loom can be resumed even if this file is lost.
 *
 * Several processes share the file: every change is a read-modify-write under a short lock
 * (`<state>.lock`), and lowdb writes it whole through a temporary file and a rename, so a
 * reader never sees half a file. lowdb is loaded on first use only.
 */
import { SystemError } from "../core/errors.js";
import { isoNow } from "../core/clock.js";
import { takeLock } from "./lock-file.js";

export const STATE_VERSION = 1;

/** An entity summoned against the loom (snake_case: it is a file format). */
export interface EntityEntry {
  cantrip: string;
  medium: string;
  /** The spell file the entity's cantrip came from, when it came from one. */
  spell: string | null;
  created: string;
  updated: string;
  /** The entity's last recorded turn (null until it has one). */
  last_turn_id: string | null;
  /** Sends that reached their end, over every process. */
  sends: number;
}

/** A protocol session (HTTP, ACP) and the entity it speaks to. */
export interface SessionEntry {
  protocol: string;
  entity_id: string;
  created: string;
}

export interface StateData {
  version: number;
  entities: Record<string, EntityEntry>;
  sessions: Record<string, SessionEntry>;
}

const empty = (): StateData => ({ version: STATE_VERSION, entities: {}, sessions: {} });

/** How long a change waits for another process's change to finish. */
const STATE_LOCK_WAIT_MS = 10_000;

interface Db {
  data: StateData;
  read(): Promise<void>;
  write(): Promise<void>;
}

/** The state file of one loom. */
export class EntityState {
  private constructor(
    readonly path: string,
    private readonly db: Db,
  ) {}

  static async open(path: string): Promise<EntityState> {
    // Not lowdb's JSONFilePreset: it keeps the data in memory when NODE_ENV is "test".
    const [{ Low }, { JSONFile }] = await Promise.all([import("lowdb"), import("lowdb/node")]);
    try {
      const db = new Low<StateData>(new JSONFile<StateData>(path), empty());
      await db.read();
      return new EntityState(path, db);
    } catch (err) {
      throw unreadable(path, err);
    }
  }

  /** The state as it is on disk now. */
  async read(): Promise<StateData> {
    await this.load();
    return this.db.data;
  }

  /** A change, made on what is on disk now and written back, one process at a time. */
  async change<T>(fn: (data: StateData) => T): Promise<T> {
    const release = await takeLock(`${this.path}.lock`, {
      waitMs: STATE_LOCK_WAIT_MS,
      busy: (pid) =>
        new SystemError("loom_in_use", `${this.path} is being changed by pid ${pid}; try again`),
    });
    try {
      await this.load();
      const out = fn(this.db.data);
      this.db.data.version = STATE_VERSION;
      await this.db.write();
      return out;
    } finally {
      release();
    }
  }

  /** Records which entity a protocol session speaks to. */
  recordSession(protocol: string, sessionId: string, entityId: string): Promise<void> {
    return this.change((data) => {
      data.sessions[sessionId] = { protocol, entity_id: entityId, created: isoNow() };
    });
  }

  private async load(): Promise<void> {
    try {
      await this.db.read();
    } catch (err) {
      throw unreadable(this.path, err);
    }
    const data = this.db.data as Partial<StateData> | null;
    if (!data || typeof data !== "object") this.db.data = empty();
    else {
      if (typeof data.version === "number" && data.version > STATE_VERSION)
        throw new SystemError(
          "loom_state_version",
          `${this.path}: state format version ${data.version} is newer than this Spellbook reads (${STATE_VERSION})`,
        );
      data.entities ??= {};
      data.sessions ??= {};
    }
  }
}

/** The entry of a newly summoned entity. */
export function entityEntry(
  info: { cantripName: string; medium: string; source: string | undefined },
  now: string,
): EntityEntry {
  return {
    cantrip: info.cantripName,
    medium: info.medium,
    spell: info.source ?? null,
    created: now,
    updated: now,
    last_turn_id: null,
    sends: 0,
  };
}

function unreadable(path: string, err: unknown): SystemError {
  return new SystemError("loom_state_unreadable", `cannot read ${path}: ${errorText(err)}`, {
    cause: err,
  });
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
