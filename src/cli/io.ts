import { relative, resolve } from "node:path";
/** The streams a CLI function writes to: the process's in `bin`, buffers in tests. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal?: AbortSignal;
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
});

/** A path as the user should read it in messages: relative to the working directory. */
export function displayPath(cwd: string, file: string): string {
  const full = resolve(cwd, file);
  const rel = relative(process.cwd(), full);
  return rel && !rel.startsWith("..") ? rel : full;
}
