/**
 * How an MCP server's process is started: with bubblewrap where it runs, in a pid namespace of
 * its own with a fresh /proc, so that every process the server starts — one that left its
 * session and its parent (`setsid -f`) included — is killed by the kernel when the server ends
 * or is stopped (and when this process dies: `--die-with-parent`), and the server sees no other
 * process of the machine (not this one's environment in /proc/$PPID/environ). Nothing else is
 * walled off: the server keeps the user's files and network, trusted code with the user's
 * rights. Where bubblewrap cannot run, the server is started directly and only it is stopped.
 */
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { bwrapProblem } from "../mediums/bash/sandbox.js";

export interface ServerSpawn {
  command: string;
  args: string[];
  /** True when the server runs in its own pid namespace. */
  contained: boolean;
}

export function serverSpawn(command: string, args: readonly string[], cwd: string): ServerSpawn {
  const bwrap = bwrapProblem() === undefined ? findBwrap() : undefined;
  if (!bwrap) return { command, args: [...args], contained: false };
  return {
    command: bwrap,
    args: [
      "--dev-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--unshare-pid",
      "--die-with-parent",
      "--new-session",
      "--chdir",
      cwd,
      "--",
      command,
      ...args,
    ],
    contained: true,
  };
}

/** bwrap's absolute path (the server's own PATH may differ from this process's). */
function findBwrap(): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "bwrap"))) return join(dir, "bwrap");
  }
  return undefined;
}
