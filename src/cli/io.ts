import { relative, resolve } from "node:path";
import type { ApprovalRequest } from "../core/approval.js";
import { directOutput, isTerminal } from "./stdio.js";
/** The streams a CLI function writes to: the process's in `bin`, buffers in tests. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal?: AbortSignal;
  /**
   * Resolves when stdout can take more: at once, or once a slow reader has taken what is
   * waiting (back-pressure, so a command printing a lot holds little of it in memory); false
   * when it never will (the reader went away). Absent: stdout never needs waiting for.
   */
  drain?: () => Promise<boolean>;
  /**
   * Asks the person at the terminal (an approval, issue 25; the request itself for the terminal
   * UI's dialog, issue 42); absent when there is none.
   */
  question?:
    | ((text: string, signal: AbortSignal, request?: ApprovalRequest) => Promise<string | null>)
    | undefined;
  /** stderr is a terminal (a progress bar may redraw itself there). */
  tty?: boolean;
}

/** Exit codes of `spell`: stable, documented in the README. */
export const EXIT = {
  ok: 0,
  /** tests failed */
  failed: 1,
  /** the cast was truncated by a ward */
  truncated: 2,
  /** the spell (or a flag) is invalid */
  invalid: 3,
  /** the run failed: provider, IO, a misbehaving model */
  failure: 4,
} as const;

export const processIO = (signal?: AbortSignal): CliIO => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  ...(signal ? { signal } : {}),
  drain: () => drained(process.stdout),
  tty: process.stderr.isTTY === true,
});

/**
 * processIO for a process that has not opened its stdout/stderr streams (`spell run` without
 * oclif): it writes to a file, pipe or socket without opening them (start-up; see stdio.ts).
 */
export function directProcessIO(signal?: AbortSignal): CliIO {
  const out = directOutput(1, drained);
  const err = directOutput(2, drained);
  return {
    stdout: out.write,
    stderr: err.write,
    env: process.env,
    cwd: process.cwd(),
    ...(signal ? { signal } : {}),
    drain: out.drain,
    tty: isTerminal(2),
  };
}

/**
 * Writes `text` to stdout and waits while stdout is full (see CliIO.drain). Every command
 * that can print a lot prints through this; false when the reader went away (stop printing).
 */
export function print(io: CliIO, text: string): Promise<boolean> {
  io.stdout(text);
  return io.drain ? io.drain() : Promise.resolve(true);
}

/** When `stream` has passed on what it buffers; false when it is closed or fails first. */
function drained(stream: NodeJS.WriteStream): Promise<boolean> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve(false);
  if (!stream.writableNeedDrain) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (open: boolean) => () => {
      stream.off("drain", onDrain).off("close", onEnd).off("error", onEnd);
      resolve(open);
    };
    const onDrain = settle(true);
    const onEnd = settle(false);
    stream.once("drain", onDrain).once("close", onEnd).once("error", onEnd);
  });
}

/** A path as the user should read it in messages: relative to the working directory. */
export function displayPath(cwd: string, file: string): string {
  const full = resolve(cwd, file);
  const rel = relative(process.cwd(), full);
  return rel && !rel.startsWith("..") ? rel : full;
}
