import type * as ChildProcess from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ConfigError } from "../../../core/errors.js";
import { lazyBuiltin } from "../../../core/builtin.js";
import { setIdFilter } from "./seccomp.js";

const childProcess = lazyBuiltin<typeof ChildProcess>("node:child_process");

/** How a bash circle's commands are isolated: bubblewrap, or nothing (named explicitly). */
export type SandboxMode = "bwrap" | "passthrough";

/** The install command shown when bubblewrap is missing. */
export const BWRAP_INSTALL =
  "apt-get install -y bubblewrap (Debian/Ubuntu; dnf install bubblewrap on Fedora)";

/** Where the sandbox sees things: the workspace, the gate folder, node. */
export const SANDBOX_WORK = "/work";
export const SANDBOX_GATES = "/spell";
/** node, for the gate commands' client (bound read-only; the gate folder is read-only too). */
export const SANDBOX_NODE = "/spell-node";

let probed: string | undefined;

/** The uid and gid a command has inside: not 0, mapped to the host user running Spellbook. */
export const SANDBOX_UID = 1000;

const WALLS = ["--unshare-all", "--cap-drop", "ALL"];
const USERNS = ["--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_UID)];

/**
 * Namespaces and identity, from the strongest a bubblewrap takes down: always every namespace and
 * every capability dropped (effective, permitted, bounding); a user namespace of its own even when
 * Spellbook runs as root, with an unprivileged uid and gid inside; and no nested user namespace
 * (--disable-userns, bubblewrap 0.8+). A setuid bubblewrap on a host without user namespaces takes
 * only the first.
 */
const ISOLATIONS: readonly string[][] = [
  [...WALLS, ...USERNS, "--disable-userns"],
  [...WALLS, ...USERNS],
  WALLS,
];

/** The isolation bwrapProblem found; the strongest until it has run (never weaker by default). */
let isolation: string[] = ISOLATIONS[0]!;

/** The isolation flags of this host's bubblewrap (found once per process). */
function isolationFlags(): string[] {
  bwrapProblem();
  return isolation;
}

/** Why bubblewrap cannot run here, or undefined when it can (checked once per process). */
export function bwrapProblem(): string | undefined {
  if (probed !== undefined) return probed || undefined;
  const found = (process.env["PATH"] ?? "")
    .split(delimiter)
    .some((dir) => dir && existsSync(join(dir, "bwrap")));
  if (!found) {
    probed = `bubblewrap (bwrap) is not installed; install it: ${BWRAP_INSTALL}`;
    return probed;
  }
  const filter = setIdFilter();
  if (!filter) {
    probed = `the bash sandbox has no seccomp filter for this CPU (${process.arch}); it runs on x64 and arm64 Linux`;
    return probed;
  }
  // The strongest walls of bwrapArgs this bubblewrap can raise (its filter read from stdin here).
  let why = "";
  for (const candidate of ISOLATIONS) {
    const walls = [...systemBinds(), ...procWalls(), ...memoryWalls(1)];
    const args = [...candidate, "--seccomp", "0", ...walls, "true"];
    const out = childProcess().spawnSync("bwrap", args, { timeout: 5000, input: filter });
    if (out.status === 0) {
      isolation = candidate;
      probed = "";
      return undefined;
    }
    why = out.stderr.toString().trim() || `exit ${out.status}`;
  }
  probed = `bubblewrap cannot create a sandbox here (${why}); user namespaces may be disabled`;
  return probed;
}

/**
 * A fresh /proc whose kernel settings are read-only: the command's user is the host's user
 * outside, and root outside owns /proc/sys (core_pattern) whatever its capabilities.
 */
function procWalls(): string[] {
  return [
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
  ];
}

/**
 * Where a command may hold memory outside its processes, each a tmpfs of `maxMemoryMb`: /tmp and
 * /dev/shm; the rest of /dev (bubblewrap's own tmpfs, unbounded) is read-only.
 */
function memoryWalls(maxMemoryMb: number): string[] {
  const size = String(maxMemoryMb * 1024 * 1024);
  return [
    "--dev",
    "/dev",
    "--size",
    size,
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    "--size",
    size,
    "--tmpfs",
    "/tmp",
  ];
}

/** Throws at load when a bash circle asks for bubblewrap that cannot run: never unsandboxed in silence. */
export function requireSandbox(mode: SandboxMode): void {
  if (mode !== "bwrap") return;
  const problem = bwrapProblem();
  if (problem)
    throw new ConfigError(
      "sandbox_unavailable",
      `the bash medium runs commands in bubblewrap: ${problem}. To run commands with no OS sandbox (tests, trusted machines), write circle.sandbox: passthrough`,
    );
}

/** The system, read-only: /usr and the top-level links or folders a shell needs. */
function systemBinds(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const dir of ["/bin", "/sbin", "/lib", "/lib64", "/lib32"]) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push("--symlink", `usr${dir}`, dir);
    else args.push("--ro-bind", dir, dir);
  }
  // Debian's alternatives (awk, editor…) and the loader cache; never the rest of /etc.
  for (const file of ["/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime"])
    if (existsSync(file)) args.push("--ro-bind", file, file);
  return args;
}

export interface BwrapPlan {
  root: string;
  writable: boolean;
  /** The host folder holding the gate commands, the client and the socket. */
  gateDir: string;
  env: Readonly<Record<string, string>>;
  /** The size of /tmp and of /dev/shm, each (max_memory_mb). */
  maxMemoryMb: number;
}

/** The file descriptor bubblewrap reads the seccomp filter from (`setIdFilter`, written there). */
export const SECCOMP_FD = 3;

/**
 * bwrap's arguments: no network, fresh /tmp, system read-only, only the root bound, and no
 * set-id bit on any file the command makes (the filter on SECCOMP_FD).
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    ...isolationFlags(),
    "--die-with-parent",
    "--new-session",
    "--seccomp",
    String(SECCOMP_FD),
    ...systemBinds(),
    ...procWalls(),
    ...memoryWalls(plan.maxMemoryMb),
    plan.writable ? "--bind" : "--ro-bind",
    plan.root,
    SANDBOX_WORK,
    "--ro-bind",
    plan.gateDir,
    SANDBOX_GATES,
    "--ro-bind",
    process.execPath,
    SANDBOX_NODE,
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_WORK,
    "--clearenv",
  ];
  for (const [k, v] of Object.entries(plan.env)) args.push("--setenv", k, v);
  return args;
}
