/**
 * The entry of the run bundle (dist/run.cjs, made by scripts/bundle.mjs): `spell run FILE` when
 * start.ts found its arguments plain, without oclif and without the rest of the CLI. It does
 * what oclif's Run command does around the cast, so that nothing tells the two ways apart.
 */
import type { RunFlags } from "./run-flags.js";
import { runInProcess } from "./run-process.js";
import { watchStream } from "./stdio.js";

/**
 * Runs the cast and sets the exit code. A failure escaping the cast rejects after setting the
 * exit code as oclif's Command#catch does; bin/run.js hands it to oclif's handler to print.
 */
export async function run(file: string, flags: RunFlags): Promise<void> {
  // As oclif's Command module does when it loads: a reader that closed stdout early
  // (`spell run … | head -c1`) is not an error. Attached when something opens the stream: a
  // run writing to a file or pipe writes without it (stdio.ts), and bin/run.js leaves it closed.
  watchStream("stdout", (stdout) =>
    stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (err && err.code === "EPIPE") return;
      throw err;
    }),
  );
  try {
    process.exitCode = await runInProcess(file, flags, true);
  } catch (err) {
    process.exitCode = process.exitCode ?? (err as { exitCode?: number }).exitCode ?? 1;
    throw err;
  }
}
