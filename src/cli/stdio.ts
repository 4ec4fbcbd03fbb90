/**
 * The process's stdout and stderr without Node's streams on them, for `spell run` started
 * without oclif (run-main.ts; ARCHITECTURE.md "Start-up"). Reading `process.stdout` or
 * `process.stderr` once makes Node load its streams (and, for a pipe or socket, `net`), ~7–17 M
 * instructions of a start-up; asking `node:tty` whether an fd is a terminal loads `net` too.
 *
 * - `isTerminal(fd)` answers what `process.stdout.isTTY` / `tty.isatty(fd)` answer, asking
 *   `node:tty` only for a character device that is not one of Linux's memory devices
 *   (`/dev/null`…): a terminal is always a character device.
 * - `directOutput(fd)` writes to a file, pipe or socket with `fs.writeSync` while nobody has
 *   opened Node's stream on it. On the first error (EAGAIN on a non-blocking pipe, EPIPE…) it
 *   hands the rest to the stream, which then does what it always did (waits, ignores EPIPE on
 *   stdout, throws on stderr); once anyone reads `process.stdout` / `process.stderr` every
 *   write goes through the stream, so the order of the bytes is kept.
 */
import { fstatSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Tty from "node:tty";

/** Whether `fd` is a terminal, as `tty.isatty(fd)` says, loading `node:tty` only if it may be. */
export function isTerminal(fd: number): boolean {
  let stats;
  try {
    stats = fstatSync(fd);
  } catch {
    return false; // closed: tty.isatty says false too
  }
  if (!stats.isCharacterDevice()) return false;
  // Linux's memory devices (major 1: /dev/null, /dev/zero, /dev/full, /dev/urandom…).
  if (process.platform === "linux" && Math.floor(stats.rdev / 256) % 4096 === 1) return false;
  // Any base will do for a built-in (this file is also bundled where import.meta is not set).
  const tty = createRequire(process.execPath)("node:tty") as typeof Tty;
  return tty.isatty(fd);
}

type StdName = "stdout" | "stderr";
const NAMES: Record<1 | 2, StdName> = { 1: "stdout", 2: "stderr" };
const opened: Record<StdName, boolean> = { stdout: false, stderr: false };
const watched: Record<StdName, boolean> = { stdout: false, stderr: false };
const onOpen: Record<StdName, ((stream: NodeJS.WriteStream) => void)[]> = {
  stdout: [],
  stderr: [],
};

/**
 * Notes when Node's stream on stdout/stderr is first opened (and calls `then` with it). Call it
 * before anything has read `process[name]`: a stream opened earlier is not seen.
 */
export function watchStream(name: StdName, then?: (stream: NodeJS.WriteStream) => void): void {
  if (then) onOpen[name].push(then);
  if (watched[name]) return;
  watched[name] = true;
  const desc = Object.getOwnPropertyDescriptor(process, name);
  if (!desc?.get || !desc.configurable) {
    opened[name] = true; // not Node's lazy getter: use the stream as it is
    return;
  }
  const get = desc.get.bind(process) as () => NodeJS.WriteStream;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: desc.enumerable ?? false,
    get() {
      const stream = get();
      if (!opened[name]) {
        opened[name] = true;
        for (const f of onOpen[name].splice(0)) f(stream);
      }
      return stream;
    },
  });
}

/** An output of the process: what CliIO's stdout/stderr and drain need. */
export interface DirectOutput {
  write: (text: string) => void;
  /** As CliIO.drain: true at once while writing directly (nothing is held back). */
  drain: () => Promise<boolean>;
}

/**
 * Writes to `fd` (1 or 2) directly when it is not a terminal and its stream is not open; else,
 * and after the first failed write, through the stream. `drained` is CliIO's wait on a stream.
 */
export function directOutput(
  fd: 1 | 2,
  drained: (stream: NodeJS.WriteStream) => Promise<boolean>,
  write: (fd: number, bytes: Uint8Array, offset: number) => number = (f, b, o) =>
    writeSync(f, b, o),
): DirectOutput {
  const name = NAMES[fd];
  watchStream(name);
  let direct = !opened[name] && !isTerminal(fd);
  const stream = () => process[name];
  return {
    write: (text) => {
      if (direct && opened[name]) direct = false;
      if (!direct) {
        stream().write(text);
        return;
      }
      const bytes = Buffer.from(text, "utf8");
      let at = 0;
      try {
        while (at < bytes.length) at += write(fd, bytes, at);
      } catch {
        // The stream meets the same condition and does what it always did with it.
        direct = false;
        stream().write(bytes.subarray(at));
      }
    },
    drain: () => (direct && !opened[name] ? Promise.resolve(true) : drained(stream())),
  };
}
