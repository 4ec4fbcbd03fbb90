import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { hasBwrap, noBwrap, spellDir } from "../circle/bash-helpers.js";
import { needs, notBuilt, onlyWhere, type Gate } from "../support/needs.js";

/** The namespaces of this test process: a command sharing any of them is not in the sandbox. */
export function hostNamespaces(): string[] {
  return ["pid", "mnt", "user", "net"].map((ns) => readlinkSync(`/proc/self/ns/${ns}`));
}

/**
 * Shell lines that print INSIDE when the command runs in pid, mount, user and network namespaces of its
 * own, and otherwise print NOT-INSIDE and end the command: put them before any probe that would
 * do harm outside the sandbox.
 */
export function insideOnly(): string {
  const [pid, mnt, user, net] = hostNamespaces();
  return [
    `for ns in 'pid:${pid}' 'mnt:${mnt}' 'user:${user}' 'net:${net}'; do`,
    `  [ "$(readlink /proc/self/ns/\${ns%%:*})" = "\${ns#*:}" ] && { echo NOT-INSIDE \${ns%%:*}; exit 0; }`,
    "done",
    "echo INSIDE",
  ].join("\n");
}

/** Read-only binds whose flags are checked after a remount attempt. */
const READ_ONLY = ["/", "/usr", "/work", "/spell", "/spell-node", "/proc/sys"];

/**
 * The probes, as one shell command. Harmless were the walls gone:
 * - it first proves it runs in namespaces of its own (pid, mount, user differ from the test
 *   process's), and stops with `NOT-INSIDE` otherwise — so a remount attempt only ever reaches
 *   the sandbox's own mount table;
 * - the only file it writes to is the test's throwaway workspace (bound read-only at /work), and
 *   the only sysctl it writes is the UTS namespace's own hostname, with the value it has;
 * - the only process it signals or traces is `victim`, a `sleep` the test started.
 */
export function wallProbes(victim: number): string {
  const remounts = READ_ONLY.map(
    (m) => `mount -o remount,rw,bind ${m} 2>/dev/null && echo "remounted ${m}"`,
  );
  return [
    insideOnly(),
    "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status",
    "echo uid=$(id -u)",
    ...remounts,
    "mount -t tmpfs none /tmp 2>/dev/null && echo mounted-tmpfs",
    // every mount point of the list, with its options after the attempts
    `awk '{ print "mount " $5 " " $6 }' /proc/self/mountinfo`,
    "touch /work/probe-written 2>/dev/null && echo wrote-work",
    'h=$(cat /proc/sys/kernel/hostname); (echo "$h" > /proc/sys/kernel/hostname) 2>/dev/null && echo wrote-sysctl',
    "ls -A /sys 2>/dev/null | head -3 | sed 's/^/sys: /'",
    "unshare -U true 2>/dev/null && echo unshared-user",
    "unshare -m true 2>/dev/null && echo unshared-mount",
    "unshare -n true 2>/dev/null && echo unshared-net",
    `kill -0 ${victim} 2>/dev/null && echo victim-visible`,
    `python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); print("ptrace", l.ptrace(16, ${victim}, 0, 0))'`,
    `kill -9 ${victim} 2>/dev/null && echo victim-killed`,
    "echo PROBES-DONE",
  ].join("\n");
}

/** What the probes must have seen: inside, no capability, every wall held. */
export function expectWallsHeld(observation: string, nestedUsernsRefused: boolean): void {
  expect(observation).toContain("INSIDE");
  expect(observation).not.toContain("NOT-INSIDE");
  expect(observation).toContain("PROBES-DONE");
  for (const cap of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"])
    expect(observation, cap).toMatch(new RegExp(`^${cap}:\\s+0{16}$`, "m"));
  expect(observation).not.toMatch(/^uid=0$/m); // the host's root is not root inside
  expect(observation).not.toMatch(/^remounted /m);
  expect(observation).not.toContain("mounted-tmpfs");
  for (const point of READ_ONLY) {
    // the last mount at that point is the one a path there reaches
    const lines = observation.split("\n").filter((l) => l.startsWith(`mount ${point} `));
    const opts = lines.at(-1)?.split(" ")[2];
    expect(opts, `${point} is a mount point inside`).toBeDefined();
    expect(opts!.split(","), `${point} stays read-only`).toContain("ro");
  }
  expect(observation).not.toContain("wrote-work");
  expect(observation).not.toContain("wrote-sysctl");
  expect(observation).not.toMatch(/^sys: /m);
  expect(observation).not.toContain("unshared-mount");
  expect(observation).not.toContain("unshared-net");
  // bubblewrap before 0.8 cannot refuse it (no --disable-userns); the test names that case
  if (nestedUsernsRefused) expect(observation).not.toContain("unshared-user");
  expect(observation).not.toContain("victim-");
  expect(observation).toMatch(/^ptrace -1$/m);
}

/** A `sleep` the probes may aim at; `stop` ends it (it must still be alive then). */
export function victim(opts: { uid?: number; gid?: number } = {}): {
  pid: number;
  alive(): boolean;
  stop(): void;
} {
  const child: ChildProcess = spawn("sleep", ["600"], { stdio: "ignore", ...opts });
  let exited = false;
  child.on("exit", () => (exited = true));
  return {
    pid: child.pid!,
    alive: () => !exited && !zombie(child.pid!),
    stop: () => void child.kill("SIGKILL"),
  };
}

/** A process that has ended and waits to be reaped (or is gone) is no longer alive. */
function zombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** The uid and gid of nobody, for the casts run unprivileged through setpriv. */
export const NOBODY = 65534;

/**
 * Where the bash medium can be started as nobody (tests/support/needs.ts): it needs a root test
 * process (else the in-process tests already run unprivileged: skipped everywhere), and
 * bubblewrap, a built dist/ and a user namespace bubblewrap can make for nobody (services: a
 * CI run without them fails).
 */
export function asNobody(): Gate {
  if (process.getuid?.() !== 0)
    return onlyWhere(
      "the test process is not root, so the in-process tests already run unprivileged",
    );
  return needs(noBwrap, notBuilt("dist/index.js"), hasBwrap ? nobodyProblem() : undefined);
}

/** Why bubblewrap cannot make a user namespace for nobody here, or undefined. */
function nobodyProblem(): string | undefined {
  const probe = spawnSync(
    "setpriv",
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"].concat([
      "bwrap",
      "--unshare-user",
      "--ro-bind",
      "/",
      "/",
      "true",
    ]),
    { encoding: "utf8", timeout: 10_000 },
  );
  if (probe.status !== 0)
    return `bubblewrap cannot make a user namespace for an unprivileged user here (${(probe.stderr || String(probe.error)).trim()})`;
  return undefined;
}

/** A bash spell whose scripted model sends `commands`, one per turn, in the writable root ./work. */
export function bashSpell(commands: readonly string[], wards = ""): string {
  return `llm:
  provider: scripted
  responses:
${commands.map((c) => `    - code: ${JSON.stringify(c)}`).join("\n")}
identity: { system_prompt: You run commands. }
circle:
  medium: bash
  root: ./work
  writable: true
  gates: [done]
  wards: [{ max_turns: ${commands.length} }${wards}]
`;
}

/** What a cast run by another user printed: its uid, and each turn's observation and error flag. */
export interface CastAs {
  uid: number;
  observations: string[];
  errors: boolean[];
}

/**
 * Casts `spell` (its text) with the built library as `uid` (through setpriv, from a root test
 * process), in a folder of the test's owned by that user with a writable `work/`; returns what
 * the cast printed and the folder.
 */
export function castAs(uid: number, spell: string): { cast: CastAs; dir: string } {
  const dir = spellDir({ "work/.keep": "", "spell.yaml": spell });
  const chownTree = (p: string): void => {
    chownSync(p, uid, uid);
    if (statSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n));
  };
  chownTree(dir);
  const fixture = join(process.cwd(), "tests/security/fixtures/bash-cast.mjs");
  const out = spawnSync(
    "setpriv",
    [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", process.execPath].concat([
      fixture,
      join(dir, "spell.yaml"),
    ]),
    { cwd: dir, env: { PATH: process.env["PATH"], HOME: dir }, encoding: "utf8", timeout: 60_000 },
  );
  expect(out.stderr).toBe("");
  const cast = JSON.parse(out.stdout) as CastAs;
  expect(cast.uid).toBe(uid);
  return { cast, dir };
}
