/**
 * `spell run` in this process, as both ways in run it: the oclif command (commands/run.ts) and
 * the start-up path without oclif (run-main.ts). Ctrl-C stops after the current step; a second
 * Ctrl-C quits at once.
 */
import { directProcessIO, processIO } from "./io.js";
import { runCommand, type RunFlags } from "./run.js";
import { terminalQuestion } from "./approver.js";

/**
 * Casts FILE with the process's streams; returns the exit code. `direct`: the process has not
 * opened its stdout/stderr streams yet and writes without them while it can (io.ts).
 */
export async function runInProcess(file: string, flags: RunFlags, direct = false): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    process.stderr.write(
      "interrupted: stopping after the current step (Ctrl-C again to quit now)\n",
    );
    controller.abort("interrupted");
  };
  process.on("SIGINT", onSigint);
  const io = {
    ...(direct ? directProcessIO : processIO)(controller.signal),
    question: terminalQuestion(),
  };
  const code = await runCommand(file, flags, io);
  process.off("SIGINT", onSigint);
  return code;
}
