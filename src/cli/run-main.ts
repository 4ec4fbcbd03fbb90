/**
 * The entry of the run bundle (dist/run.cjs, made by scripts/bundle.mjs): `spell run FILE` when
 * start.ts found its arguments plain, without oclif and without the rest of the CLI. It does
 * what oclif's Run command does around the cast, so that nothing tells the two ways apart.
 */
import type { RunFlags } from "./run-flags.js";
import { runInProcess } from "./run-process.js";

/**
 * Runs the cast and sets the exit code. A failure escaping the cast rejects after setting the
 * exit code as oclif's Command#catch does; bin/run.js hands it to oclif's handler to print.
 */
export async function run(file: string, flags: RunFlags): Promise<void> {
  try {
    process.exitCode = await runInProcess(file, flags);
  } catch (err) {
    process.exitCode = process.exitCode ?? (err as { exitCode?: number }).exitCode ?? 1;
    throw err;
  }
}
