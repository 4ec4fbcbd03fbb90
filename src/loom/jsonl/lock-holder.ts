/**
 * Who holds a lock file (lock-file.ts), and whether that process still lives. A lock records
 * `pid boot-id start-time`: the pid, the kernel's boot id (/proc/sys/kernel/random/boot_id)
 * and the process's start time in clock ticks since boot (field 22 of /proc/PID/stat). A pid
 * alone is not enough: pids are reused, and a restarted container's first process is pid 1
 * again. Older locks hold the pid only; without /proc (not Linux) a lock holds the pid and `-`.
 */
import { readFileSync } from "node:fs";

export interface Holder {
  pid: number;
  /** The boot the lock was written in; null when unknown. */
  boot: string | null;
  /** The holder's start time (clock ticks since boot); null when unknown. */
  start: string | null;
}

const readQuietly = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

let ownBoot: string | null | undefined;

/** This machine's boot id; null without /proc. */
export function bootId(): string | null {
  ownBoot ??= readQuietly("/proc/sys/kernel/random/boot_id")?.trim() || null;
  return ownBoot;
}

/** When process `pid` started (field 22 of /proc/PID/stat); null when it is gone or unknown. */
export function startTime(pid: number): string | null {
  const stat = readQuietly(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // Field 2 is the command in parentheses and may hold spaces: count from the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? null; // fields 3, 4, … : field 22 is the 20th
}

let ownText: string | undefined;

/** What this process writes into a lock it holds. */
export function holderText(): string {
  ownText ??= `${process.pid} ${bootId() ?? "-"} ${startTime(process.pid) ?? "-"}\n`;
  return ownText;
}

/** The holder a lock names; null when the text names none (a lock of another kind). */
export function parseHolder(text: string): Holder | null {
  const [pidText, boot, start] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  const known = (s: string | undefined) => (s === undefined || s === "-" ? null : s);
  return { pid, boot: known(boot), start: known(start) };
}

/** True when the process that wrote the lock is certainly not running. */
export function isDead(holder: Holder): boolean {
  const boot = bootId();
  if (holder.boot !== null && boot !== null && holder.boot !== boot) return true; // rebooted
  if (!alive(holder.pid)) return true;
  if (holder.start === null) return false; // an older lock: the pid is all there is
  const start = startTime(holder.pid);
  return start !== null && start !== holder.start; // the pid now names another process
}

/** What a message adds to a holder's pid: when it started, if known. */
export function describeHolder(holder: Holder): string {
  return holder.start === null ? "" : ` (started at clock tick ${holder.start} of this boot)`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // alive, someone else's
  }
}
