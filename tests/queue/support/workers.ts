/** `spell worker` processes for the queue tests: the built CLI, each a child the test owns. */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const root = process.cwd();

export interface WorkerProcess {
  child: ChildProcess;
  /** What the worker wrote on stderr so far (one "job … done" line per cast it finished). */
  log(): string;
  /** Resolves when the worker's stderr contains `text` (an event, not a sleep). */
  waitFor(text: string | RegExp): Promise<void>;
  stop(): Promise<void>;
}

export function startWorker(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): WorkerProcess {
  const child = spawn(process.execPath, [join(root, "bin/run.js"), "worker", ...args], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", HOME: cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const waiters: { test: string | RegExp; done: () => void }[] = [];
  const seen = (t: string | RegExp) => (typeof t === "string" ? text.includes(t) : t.test(text));
  child.stderr.on("data", (d: Buffer) => {
    text += d.toString();
    for (const w of waiters.splice(0))
      if (seen(w.test)) w.done();
      else waiters.push(w);
  });
  child.stdout.on("data", () => {});
  return {
    child,
    log: () => text,
    waitFor: (test) =>
      new Promise((resolve, reject) => {
        if (seen(test)) return resolve();
        waiters.push({ test, done: resolve });
        child.once("exit", (code) => {
          if (!seen(test))
            reject(new Error(`worker exited ${code} before "${String(test)}":\n${text}`));
        });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
