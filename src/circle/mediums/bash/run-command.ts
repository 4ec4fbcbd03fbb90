import type * as ChildProcess from "node:child_process";
import type * as Crypto from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { GATE_CLIENT } from "./gate-server.js";
import { prelude, withGateWords } from "./prelude.js";
import { commandCgroup, type CommandCgroup } from "./cgroup.js";
import { SANDBOX_GATES, SANDBOX_NODE, SECCOMP_FD, bwrapArgs, type SandboxMode } from "./sandbox.js";
import { setIdFilter } from "./seccomp.js";
import { lazyBuiltin } from "../../../core/builtin.js";

const childProcess = lazyBuiltin<typeof ChildProcess>("node:child_process");
const crypto = lazyBuiltin<typeof Crypto>("node:crypto");
const randomHex = (bytes: number): string => crypto().randomBytes(bytes).toString("hex");

/** What one command did: its output (each stream capped) and how it ended. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  stdoutCut: boolean;
  stderrCut: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Set when the host ended the command (done was called, the loop stopped). */
  stopped?: string | undefined;
  /** Processes the kernel killed for going past max_memory_mb (a memory cgroup counts them). */
  oomKills?: number | undefined;
}

/** What a command's sandbox is made of, fixed for a session: it can be started ahead. */
export interface SandboxSpec {
  mode: SandboxMode;
  root: string;
  writable: boolean;
  gateDir: string;
  maxProcesses: number;
  /** What the command may hold in memory: processes, /tmp and /dev/shm (max_memory_mb). */
  maxMemoryMb: number;
  /** The circle's gate names (the prelude routes `read` to its gate). */
  gates: readonly string[];
}

/** One command, given to a sandbox when the turn comes. */
export interface TurnSpec {
  command: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
}

export type CommandSpec = SandboxSpec & TurnSpec;

/** A running command; `stop` kills its whole process tree. */
export interface RunningCommand {
  result: Promise<CommandResult>;
  stop(reason: string): void;
}

/** The only variables a command sees: nothing of the host's environment (no secrets). */
function commandEnv(spec: SandboxSpec): Record<string, string> {
  const inside = spec.mode === "bwrap";
  const gates = inside ? SANDBOX_GATES : spec.gateDir;
  return {
    PATH: `${gates}/bin:/usr/local/bin:/usr/bin:/bin`,
    HOME: inside ? "/tmp" : spec.root,
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    SPELL_GATE_RUNNER: GATE_CLIENT.runner ?? (inside ? SANDBOX_NODE : process.execPath),
    SPELL_GATE_CLIENT: `${gates}/${GATE_CLIENT.file}`,
    SPELL_GATE_SOCKET: `${gates}/gate.sock`,
  };
}

/**
 * What the sandbox runs before its command is known: a shell that waits for the script on its
 * stdin (Node's stdin is a socket: `read -N` takes it in whole chunks to the end, byte for byte
 * under LC_ALL=C), puts /dev/null in its place, and execs bash on the script: the process that
 * `bash -c SCRIPT` started at once would be, with the same environment. `--norc`: bash started
 * on a socket would otherwise read ~/.bashrc, as if run by sshd.
 */
const AWAIT_SCRIPT = [
  "/bin/bash",
  "--norc",
  "-c",
  'LC_ALL=C; IFS= read -r -N 1000000000 s; unset LC_ALL; exec </dev/null; exec /bin/bash -c "$s"',
];

/** The process to start: bash in bubblewrap (or bare), inside its cgroups when there are any. */
function sandboxArgv(spec: SandboxSpec, cgroupTasks: readonly string[]): string[] {
  const { root, writable, gateDir, maxMemoryMb } = spec;
  const inner =
    spec.mode === "bwrap"
      ? ["bwrap", ...bwrapArgs({ root, writable, gateDir, maxMemoryMb, env: commandEnv(spec) })]
      : [];
  inner.push(...AWAIT_SCRIPT);
  if (cgroupTasks.length === 0) return inner;
  // `0` is the writing shell itself (see CommandCgroup.tasks); a failed write runs nothing.
  const joins = cgroupTasks.map((_, i) => `echo 0 > "$${i + 1}"`).join(" && ");
  const script = `${joins} && shift ${cgroupTasks.length} && exec "$@"`;
  return ["/bin/sh", "-c", script, "sh", ...cgroupTasks, ...inner];
}

/** A sandbox started ahead of its command, waiting for it: one command's, never reused. */
export interface PreparedCommand {
  /** Gives the sandbox its command; callable once. */
  start(turn: TurnSpec): RunningCommand;
  /** Ends a sandbox no command was given to (the session ended). */
  discard(): void;
}

/** How the sandbox's process ended (an error: it could not start). */
interface Ended {
  code: number | null;
  signal: string | null;
  error?: string | undefined;
}

/**
 * Starts a command's sandbox before the command is known (while the model writes it): the same
 * sandbox as at the command's start, and its own: a fresh one per command, /tmp, pid namespace
 * and pids cgroup included.
 */
export function prepareCommand(spec: SandboxSpec): PreparedCommand {
  // The pids and memory limits: cgroups where the host allows them, else the shell's ulimits.
  const cgroup = commandCgroup(`spellbook-${randomHex(6)}`, spec);
  const argv = sandboxArgv(spec, cgroup?.tasks ?? []);
  const bwrap = spec.mode === "bwrap";
  const child = childProcess().spawn(argv[0]!, argv.slice(1), {
    cwd: spec.root,
    // bwrap clears the environment itself; passthrough gets only the filtered one.
    env: bwrap ? { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } : commandEnv(spec),
    detached: true, // its own process group: the whole tree is killed at turn end
    // bwrap reads its seccomp filter from SECCOMP_FD (then closes it: the command never has it)
    stdio: bwrap ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
  }) as ChildProcess.ChildProcessByStdio<Writable, Readable, Readable>;
  if (bwrap) {
    const filterPipe = child.stdio[SECCOMP_FD] as Writable;
    filterPipe.on("error", () => undefined); // a sandbox that failed says so through its exit
    filterPipe.end(setIdFilter());
  }
  // A sandbox that ended before its script arrived says so through its exit, not a write error.
  child.stdin.on("error", () => undefined);
  const ended = new Promise<Ended>((resolve) => {
    child.on("error", (e) => resolve({ code: 127, signal: null, error: String(e.message) }));
    child.on("close", (code, sig) => resolve({ code, signal: sig }));
  });
  // The shell is gone: what it left running (holding the pipes open) ends with it.
  child.on("exit", () => killTree(child.pid, cgroup));
  let used = false;
  return {
    start: (turn) => {
      if (used) throw new Error("a prepared sandbox runs one command");
      used = true;
      return startCommand(child, cgroup, ended, { ...spec, ...turn });
    },
    discard: () => {
      if (used) return;
      used = true;
      killTree(child.pid, cgroup);
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
    },
  };
}

/** Runs one shell command: in bubblewrap, or in passthrough straight on the host. */
export function runCommand(spec: CommandSpec): RunningCommand {
  return prepareCommand(spec).start(spec);
}

/** Hands the waiting sandbox its script; the turn's clock starts here. */
function startCommand(
  child: ChildProcess.ChildProcessByStdio<Writable, Readable, Readable>,
  cgroup: CommandCgroup | undefined,
  ended: Promise<Ended>,
  spec: CommandSpec,
): RunningCommand {
  const out = new Capped(spec.maxOutputBytes);
  const err = new Capped(spec.maxOutputBytes);
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  const memoryUlimit = cgroup?.memory ? undefined : spec.maxMemoryMb;
  child.stdin.end(
    prelude(spec.maxProcesses, memoryUlimit, spec.gates) + withGateWords(spec.command),
  );
  let stopped: string | undefined;
  let timedOut = false;
  const kill = (): void => killTree(child.pid, cgroup);
  const stop = (reason: string): void => {
    stopped ??= reason;
    kill();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
    // Without a cgroup (passthrough) a process that left the group may hold the pipes; it does
    // not hold the turn past max_command_ms (nor `done`, which waits for the command to end).
    child.stdout.destroy();
    child.stderr.destroy();
  }, spec.timeoutMs);
  const onAbort = (): void => stop("the loop was stopped");
  spec.signal.addEventListener("abort", onAbort, { once: true });
  const result = ended.then(async ({ code, signal, error }) => {
    clearTimeout(timer);
    spec.signal.removeEventListener("abort", onAbort);
    kill(); // what the command left running ends with the turn
    if (error !== undefined) err.push(Buffer.from(error));
    const streams = {
      stdout: out.text(),
      stderr: err.text(),
      stdoutCut: out.cut,
      stderrCut: err.cut,
    };
    const oomKills = cgroup?.oomKills();
    if (cgroup) await cgroup.drain();
    return { ...streams, exitCode: code, signal, timedOut, stopped, oomKills };
  });
  if (spec.signal.aborted) onAbort();
  return { result, stop };
}

/**
 * Ends the command's tree: its process group, and its cgroup where there is one (a process that
 * left the group with setsid is still in the cgroup, and ends with the rest).
 */
function killTree(pid: number | undefined, cgroup: CommandCgroup | undefined): void {
  killGroup(pid);
  if (cgroup) void cgroup.drain();
}

/** Kills a process group; one already gone is no error. */
function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A stream's output up to a byte limit; what is past it is counted, not kept. */
class Capped {
  private readonly parts: Buffer[] = [];
  private size = 0;
  cut = false;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    const room = this.max - this.size;
    if (room <= 0) {
      this.cut = true;
      return;
    }
    if (b.length > room) this.cut = true;
    const kept = b.length > room ? b.subarray(0, room) : b;
    this.parts.push(kept);
    this.size += kept.length;
  }
  text(): string {
    return Buffer.concat(this.parts).toString("utf8");
  }
}
