/**
 * The loom's small durable state beside its JSONL file (`name.state.jsonl`): which entities
 * were summoned against it, the spell and cantrip they came from, their last turn, and the
 * protocol sessions that speak to them. Turns stay in the loom, which is the truth: this is
 * an index of it, and an entity whose turns are in the loom can be resumed even if this file
 * is lost.
 *
 * The file only grows, one line per change (an entity summoned, a send ended, a session
 * opened), each appended with one write (O_APPEND), so several processes add to it without a
 * lock and a send costs one short write, however many entities there are. Each process keeps
 * one index per file (shared by every entity and session of the process) and reads only what
 * was appended since it last looked. A file that is damaged — a line that is not JSON, or not
 * of a known shape — is never half-used: it is rebuilt from the loom (entity-state-rebuild.ts),
 * and a warning on stderr says so.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { SystemError, unreadableBecause } from "../../core/errors.js";
import { isoNow } from "../../core/clock.js";
import { createStateFile, rebuildState } from "./entity-state-rebuild.js";
import {
  foldLine,
  STATE_VERSION,
  type EntityEntry,
  type Folded,
  type SessionEntry,
  type StateLine,
} from "./entity-state-lines.js";

export { STATE_VERSION } from "./entity-state-lines.js";
export type { EntityEntry, SessionEntry, StateLine } from "./entity-state-lines.js";

/** The state as a whole (what the file's lines add up to). */
export interface StateData {
  version: number;
  entities: Record<string, EntityEntry>;
  sessions: Record<string, SessionEntry>;
}

/** The index of one state file in this process; see the module comment. */
export class StateIndex {
  private folded: Folded = { entities: new Map(), sessions: new Map() };
  /** Bytes of the file read so far, and the file they were read from. */
  private offset = 0;
  private inode = -1;
  /** The start of a line another process has not finished writing yet. */
  private partial: Buffer = Buffer.alloc(0);

  constructor(
    readonly path: string,
    readonly loomPath: string,
  ) {}

  /** The entity's entry as the file says now. */
  entity(entityId: string): EntityEntry | undefined {
    this.refresh();
    return this.folded.entities.get(entityId);
  }

  /** The session's entry as the file says now. */
  session(sessionId: string): SessionEntry | undefined {
    this.refresh();
    return this.folded.sessions.get(sessionId);
  }

  /** Everything the file says now. */
  data(): StateData {
    this.refresh();
    return {
      version: STATE_VERSION,
      entities: Object.fromEntries(this.folded.entities),
      sessions: Object.fromEntries(this.folded.sessions),
    };
  }

  /** Appends one change (one write); the index reads it back with the next look. */
  add(line: StateLine): void {
    createStateFile(this.path, this.loomPath);
    const text = `${JSON.stringify({ ...line, at: isoNow() })}\n`;
    const fd = openSync(this.path, "a+", 0o600);
    try {
      // After a piece without its newline (a writer killed mid-line), this line starts anew:
      // the piece becomes a line of its own, found damaged by the next look.
      const { size } = fstatSync(fd);
      const last = Buffer.alloc(1);
      const cut = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
      writeSync(fd, cut ? `\n${text}` : text);
    } finally {
      closeSync(fd);
    }
  }

  /** Reads what was appended since the last look; a damaged file is rebuilt (once a look). */
  private refresh(rebuilt = false): void {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw unreadable(this.path, err);
      this.reset(-1);
      // Only the earlier format is there: it is turned into this one (a rebuild), once.
      if (!rebuilt && existsSync(this.path.replace(/\.jsonl$/, ".json"))) {
        createStateFile(this.path, this.loomPath);
        this.refresh(true);
      }
      return;
    }
    let damage: string | null = null;
    try {
      const { ino, size } = fstatSync(fd);
      // Replaced (rebuilt by another process) or cut short: read it from the start.
      if (ino !== this.inode || size < this.offset) this.reset(ino);
      if (size > this.offset) {
        const chunk = Buffer.alloc(size - this.offset);
        const n = readSync(fd, chunk, 0, chunk.length, this.offset);
        this.offset += n;
        damage = this.take(Buffer.concat([this.partial, chunk.subarray(0, n)]));
      }
    } finally {
      closeSync(fd);
    }
    if (damage === null) return;
    if (rebuilt) throw new SystemError("loom_state_unreadable", `${this.path}: ${damage}`);
    rebuildState(this.path, this.loomPath, damage, this.folded.sessions);
    this.reset(-1);
    this.refresh(true);
  }

  /** Folds the whole lines of `bytes`; keeps an unfinished last line. Returns what is damaged. */
  private take(bytes: Buffer): string | null {
    let start = 0;
    for (let nl = bytes.indexOf(0x0a); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
      const text = bytes.toString("utf8", start, nl);
      const first = this.offset - bytes.length + start === 0;
      start = nl + 1;
      if (text.trim() === "") continue;
      const problem = foldLine(this.folded, text, first, this.path);
      if (problem !== null) {
        this.partial = Buffer.alloc(0);
        return problem;
      }
    }
    this.partial = Buffer.from(bytes.subarray(start));
    // The header is written whole: a first line without its newline is no header.
    if (this.offset - bytes.length + start === 0 && this.partial.length > 0)
      return 'its first line is not a {"type":"state",...} header';
    return null;
  }

  private reset(inode: number): void {
    this.folded = { entities: new Map(), sessions: new Map() };
    this.offset = 0;
    this.inode = inode;
    this.partial = Buffer.alloc(0);
  }
}

/** One index per state file per process: every entity and session of the process shares it. */
const indexes = new Map<string, StateIndex>();

export function stateIndex(statePath: string, loomPath: string): StateIndex {
  let index = indexes.get(statePath);
  if (!index) indexes.set(statePath, (index = new StateIndex(statePath, loomPath)));
  return index;
}

/** The entry of a newly summoned entity, as its line. */
export function entityLine(
  entityId: string,
  info: { cantripName: string; medium: string; source: string | undefined },
): StateLine {
  return {
    type: "entity",
    id: entityId,
    cantrip: info.cantripName,
    medium: info.medium,
    spell: info.source ?? null,
  };
}

function unreadable(path: string, err: unknown): SystemError {
  return new SystemError(
    "loom_state_unreadable",
    `cannot read ${path}: ${unreadableBecause(err)}`,
    {
      cause: err,
    },
  );
}
