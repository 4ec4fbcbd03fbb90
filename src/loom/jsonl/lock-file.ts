/**
 * A lock held by a process: a file, created whole and at once (written aside, then hard-linked
 * into place: the link fails when the lock exists), holding who holds it — pid, the kernel's
 * boot id and the process's start time (field 22 of /proc/PID/stat). Used for an entity's
 * thread (one writer per thread across processes).
 *
 * Taking it waits (a bounded time) while its holder lives. A holder is dead when its pid is
 * gone, when the pid is alive but started at another time (a reused pid, a restarted
 * container's pid 1), or when the lock was written before the machine last booted. Where there
 * is no /proc (not Linux), the pid alone tells.
 *
 * A dead holder's lock is taken over by one process at a time: the breaker first creates a
 * guard file (`<lock>.break`, the same way, holding who it is), looks again inside the guard
 * and removes the lock only if the same dead holder still holds it; then everyone races to
 * create the lock, and the link lets exactly one win. A guard left by a breaker killed inside
 * it (a window of microseconds) is itself removed once its holder is dead.
 */
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import type * as TimersPromises from "node:timers/promises";
import { lazyBuiltin } from "../../core/builtin.js";
import type { SystemError } from "../../core/errors.js";
import { describeHolder, holderText, isDead, parseHolder } from "./lock-holder.js";

// Loaded on the first wait, not with every `spell run` (start-up).
const timers = lazyBuiltin<typeof TimersPromises>("node:timers/promises");
const sleep: typeof TimersPromises.setTimeout = (...args) => timers().setTimeout(...args);

export interface LockOptions {
  /** How long to wait for a live holder to let go; then the lock fails. */
  waitMs: number;
  /** The error when a live process keeps it past the wait (`how`: when it started, told). */
  busy: (pid: number, how: string) => SystemError;
}

/** How often a waiting process looks again. */
const POLL_MS = 20;
/**
 * A lock that names no holder was made by an older build (created empty, then written) or
 * by something else: younger than this, it is being written; older, it was abandoned.
 */
const UNNAMED_GRACE_MS = 1_000;

/** Lock files this process holds: removed when it exits, however it exits short of a kill. */
const held = new Set<string>();
let exitHook = false;

/** Takes the lock at `path`; resolves to its release (which removes the file, once). */
export async function takeLock(path: string, options: LockOptions): Promise<() => void> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    if (createWhole(path, holderText())) return holding(path);
    const text = readText(path);
    if (text === null) continue; // released between our try and our read
    const holder = parseHolder(text);
    if (holder === null ? ageMs(path) > UNNAMED_GRACE_MS : isDead(holder)) {
      if (breakDead(path, text)) continue;
    } else if (holder !== null && Date.now() >= deadline) {
      throw options.busy(holder.pid, describeHolder(holder));
    }
    await sleep(POLL_MS);
  }
}

/**
 * Creates `path` holding `text`, whole, unless it exists: written to a file of this process,
 * then hard-linked into place (atomic; EEXIST when another holds it). Mode 600.
 */
function createWhole(path: string, text: string): boolean {
  const temp = `${path}.${process.pid}.new`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temp, text, { mode: 0o600 });
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    removeQuietly(temp);
  }
}

/**
 * Removes the lock `path` if it still holds `deadText` (a dead holder, or unreadable), one
 * breaker at a time; false when another breaker is at it (the caller waits and looks again).
 */
function breakDead(path: string, deadText: string): boolean {
  const guard = `${path}.break`;
  if (!createWhole(guard, holderText())) {
    clearDeadGuard(guard);
    return false;
  }
  try {
    // Inside the guard no one else removes the lock: what is read now is what is removed.
    const now = readText(path);
    if (now === deadText) {
      const holder = parseHolder(now);
      if (holder === null || isDead(holder)) removeQuietly(path);
    }
  } finally {
    removeQuietly(guard);
  }
  return true;
}

/** A guard whose breaker died inside it: moved aside and removed, unless it changed hands. */
function clearDeadGuard(guard: string): void {
  const text = readText(guard);
  const holder = text === null ? null : parseHolder(text);
  if (text === null || (holder !== null && !isDead(holder))) return;
  const aside = `${guard}.${process.pid}.stale`;
  try {
    renameSync(guard, aside);
  } catch {
    return; // gone already
  }
  // Another breaker may have made a new guard in between: it goes back in place.
  if (readText(aside) !== text) {
    try {
      linkSync(aside, guard);
    } catch {
      // a newer guard is there: it stands
    }
  }
  removeQuietly(aside);
}

function holding(path: string): () => void {
  held.add(path);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const p of held) removeIfMine(p);
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.delete(path);
    removeIfMine(path);
  };
}

/** Removes the lock if this process holds it (never a lock that was taken over from it). */
function removeIfMine(path: string): void {
  if (readText(path) === holderText()) removeQuietly(path);
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
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
