import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import type * as TimersPromises from "node:timers/promises";
import { lazyBuiltin } from "../../../core/builtin.js";
import { join } from "node:path";

// Loaded on the first wait, not with every `spell run` (start-up).
const timers = lazyBuiltin<typeof TimersPromises>("node:timers/promises");
const sleep: typeof TimersPromises.setTimeout = (...args) => timers().setTimeout(...args);

/** cgroup v1 hierarchies: one per controller. */
const CGROUP_PIDS = "/sys/fs/cgroup/pids";
const CGROUP_MEMORY = "/sys/fs/cgroup/memory";

/** What one command's cgroups hold it to. */
export interface CgroupLimits {
  maxProcesses: number;
  maxMemoryMb: number;
}

/** The cgroups (v1) of one command: where its shell joins, what they bound, how to end them. */
export interface CommandCgroup {
  /**
   * The v1 `tasks` files. The command's shell joins each by writing `0` (itself) there, before it
   * execs. Linux (6.x) moves a thread writing itself without the system-wide lock that writing a
   * pid to `cgroup.procs` takes, which waits for an RCU grace period each time: 5–15 ms per
   * command on a busy host (seen in perf's off-CPU stacks, issue 21). The shell is
   * single-threaded, so the whole process joins; what it starts is born inside.
   */
  tasks: string[];
  /** A pids cgroup holds the processes to maxProcesses (else the shell's `ulimit -u`). */
  pids: boolean;
  /** A memory cgroup holds processes, /tmp and /dev/shm together to maxMemoryMb (else `ulimit -v`). */
  memory: boolean;
  /** Processes the kernel killed for going past the memory limit (read before drain). */
  oomKills(): number;
  /** Kills every process left in the cgroups, waits until they are empty, and removes them. */
  drain(): Promise<void>;
}

/** Makes a cgroup in one hierarchy and writes its limits, or undefined when the host refuses. */
function make(hierarchy: string, name: string, limits: [file: string, value: string][]) {
  const dir = join(hierarchy, name);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    for (const [file, value] of limits) writeFileSync(join(dir, file), value);
    return dir;
  } catch {
    rmdirSync(dir);
    return undefined;
  }
}

/**
 * The memory limit, swap included where the kernel accounts it (memsw must be written after
 * limit_in_bytes and be at least as large).
 */
function memoryLimits(bytes: number): [string, string][] {
  const limits: [string, string][] = [["memory.limit_in_bytes", String(bytes)]];
  if (existsSync(join(CGROUP_MEMORY, "memory.memsw.limit_in_bytes")))
    limits.push(["memory.memsw.limit_in_bytes", String(bytes)]);
  return limits;
}

/**
 * A pids and a memory cgroup (v1) for one command, each where this host lets us make it: the
 * hard limit a fork bomb meets, the memory a command may hold, and every process the command
 * started, found and ended at turn end. Undefined when neither can be made.
 */
export function commandCgroup(name: string, limits: CgroupLimits): CommandCgroup | undefined {
  const pids = make(CGROUP_PIDS, name, [["pids.max", String(limits.maxProcesses)]]);
  const memory = make(CGROUP_MEMORY, name, memoryLimits(limits.maxMemoryMb * 1024 * 1024));
  const dirs = [pids, memory].filter((d): d is string => d !== undefined);
  if (dirs.length === 0) return undefined;
  // The count is kept when the cgroup is removed (a drain may run before the caller reads it).
  let kills = 0;
  const count = (): number => (kills = memory ? Math.max(kills, oomKills(memory)) : 0);
  return {
    tasks: dirs.map((d) => join(d, "tasks")),
    pids: pids !== undefined,
    memory: memory !== undefined,
    oomKills: count,
    drain: () => drain(dirs, count),
  };
}

/** `oom_kill N` of memory.oom_control (Linux 4.13+). */
function oomKills(dir: string): number {
  try {
    const m = /^oom_kill (\d+)$/m.exec(readFileSync(join(dir, "memory.oom_control"), "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * What holds a command here: a pids cgroup or `ulimit -u` (which the kernel does not apply to
 * root) or nothing but max_command_ms; a memory cgroup or `ulimit -v`.
 */
export function limitKinds(): {
  pids: "cgroup" | "ulimit" | undefined;
  memory: "cgroup" | "ulimit";
} {
  const probe = commandCgroup(`spellbook-probe-${process.pid}`, {
    maxProcesses: 1,
    maxMemoryMb: 1,
  });
  void probe?.drain();
  const root = process.getuid?.() === 0;
  return {
    pids: probe?.pids ? "cgroup" : root ? undefined : "ulimit",
    memory: probe?.memory ? "cgroup" : "ulimit",
  };
}

async function drain(dirs: readonly string[], beforeRemove: () => void): Promise<void> {
  let left = [...dirs];
  for (let i = 0; i < 200 && left.length > 0; i++) {
    const pids = new Set<string>();
    left = left.filter((dir) => {
      let procs: string[];
      try {
        procs = readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
      } catch {
        return false;
      }
      if (procs.length === 0) {
        beforeRemove();
        try {
          rmdirSync(dir);
        } catch {
          // the last process is still being reaped: next round
        }
        return existsSync(dir);
      }
      procs.forEach((p) => pids.add(p));
      return true;
    });
    for (const pid of pids) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone already
      }
    }
    if (left.length > 0) await sleep(i < 20 ? 1 : 10);
  }
}

/** What holds a fork bomb here (see limitKinds). */
export const pidsLimitKind = (): "cgroup" | "ulimit" | undefined => limitKinds().pids;

/** What holds a command's memory here (see limitKinds). */
export const memoryLimitKind = (): "cgroup" | "ulimit" => limitKinds().memory;
