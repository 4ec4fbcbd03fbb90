/**
 * The CPU time of one thread of this process, where the host tells it (Linux's /proc): the
 * watchdog counts a lane's compute in its worker's CPU time, so a worker the machine is too busy
 * to run is not taken for one that runs away (watchdog.ts). Elsewhere: undefined (wall time).
 */
import type * as Fs from "node:fs";
import { lazyBuiltin } from "../core/builtin.js";

const fs = lazyBuiltin<typeof Fs>("node:fs");
/** Linux's USER_HZ: the unit of /proc's utime and stime (100 on every Linux port). */
const TICK_MS = 10;

/** The calling thread's id in /proc (in a worker: its own), or undefined off Linux. */
export function currentThreadId(): number | undefined {
  try {
    const id = Number(/\/task\/(\d+)$/.exec(fs().readlinkSync("/proc/thread-self"))?.[1]);
    return Number.isInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Milliseconds of CPU the thread `id` of this process has used (10 ms steps), if known. */
export function threadCpuMs(id: number | undefined): number | undefined {
  if (id === undefined) return undefined;
  try {
    const stat = fs().readFileSync(`/proc/self/task/${id}/stat`, "utf8");
    // The fields after the command name (which may hold spaces), from field 3 (state) on.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return Number.isFinite(ticks) ? ticks * TICK_MS : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One thread's CPU clock, read at most once per `maxAgeMs` when the caller allows an older
 * reading: a /proc read costs ~20 µs, more than a short code turn, so a run's start is taken
 * from a reading up to 50 ms old (which can only count more CPU as used, never less).
 */
export class ThreadClock {
  private last: { ms: number | undefined; at: number } | undefined;

  constructor(private readonly id: number | undefined) {}

  read(maxAgeMs = 0): number | undefined {
    const now = performance.now();
    if (this.last && maxAgeMs > 0 && now - this.last.at <= maxAgeMs) return this.last.ms;
    this.last = { ms: threadCpuMs(this.id), at: now };
    return this.last.ms;
  }
}
