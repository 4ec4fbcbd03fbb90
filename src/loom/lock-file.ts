/**
 * A lock held by a process: a file created with O_EXCL that holds the holder's pid. Taking it
 * waits (a bounded time) while a live process holds it; a lock left by a process that died
 * (kill -9) is taken over. Used for an entity's thread (one writer per thread across
 * processes) and for the read-modify-write of the loom's small state file (entity-state.ts).
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SystemError } from "../core/errors.js";

export interface LockOptions {
  /** How long to wait for a live holder to let go; then the lock fails. */
  waitMs: number;
  /** The error when a live process keeps it past the wait. */
  busy: (pid: number) => SystemError;
}

/** How often a waiting process looks again. */
const POLL_MS = 20;
/** A lock file with no pid in it yet is being written; older than this, it was abandoned. */
const EMPTY_GRACE_MS = 1_000;

/** Lock files this process holds: removed when it exits, however it exits short of a kill. */
const held = new Set<string>();
let exitHook = false;

/** Takes the lock at `path`; resolves to its release (which removes the file, once). */
export async function takeLock(path: string, options: LockOptions): Promise<() => void> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    if (tryCreate(path)) return releaser(path);
    const holder = readHolder(path);
    if (holder === "gone") continue; // released between our create and our read
    if (holder === "dead") {
      takeOver(path);
      continue;
    }
    if (holder !== "writing" && Date.now() >= deadline) throw options.busy(holder);
    if (holder === "writing" && Date.now() >= deadline + EMPTY_GRACE_MS) takeOver(path);
    await sleep(POLL_MS);
  }
}

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "ENOENT") throw err;
    mkdirSync(dirname(path), { recursive: true });
    return tryCreate(path);
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  held.add(path);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const p of held) removeQuietly(p);
    });
  }
  return true;
}

/** The pid holding the lock, or why there is none to wait for. */
function readHolder(path: string): number | "gone" | "dead" | "writing" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return "gone";
  }
  const pid = Number.parseInt(text, 10);
  if (!Number.isInteger(pid) || pid <= 0) {
    const age = ageMs(path);
    return age !== null && age > EMPTY_GRACE_MS ? "dead" : "writing";
  }
  return alive(pid) ? pid : "dead";
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}

/**
 * Removes a dead holder's lock. The file is first moved aside (an atomic rename), then read:
 * if another process took the lock over in the meantime, the file moved is theirs, and it is
 * linked back into place. (Should a third process create the lock in that instant too, two
 * hold it: only after a holder died, and only between processes taking over at once.)
 */
function takeOver(path: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // gone already
  }
  const holder = readHolder(aside);
  if (typeof holder === "number") {
    try {
      linkSync(aside, path);
    } catch {
      // someone holds it anew: they keep it
    }
  }
  removeQuietly(aside);
}

function releaser(path: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.delete(path);
    if (readHolder(path) === process.pid) removeQuietly(path);
  };
}

function ageMs(path: string): number | null {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
