/**
 * `spell worker --queue redis://HOST:PORT`: takes casts from the queue until `stop` resolves,
 * then lets its running casts finish (docs/design/SCALE.md). Its log (stderr) has a line when it
 * is ready and one per cast it finished.
 */
import { resolve } from "node:path";
import { SpellbookError, errorMessage } from "../core/errors.js";
import { parseRate } from "../queue/rates.js";
import { startWorker } from "../queue/worker.js";
import { EXIT, type CliIO } from "./io.js";
import { exitFor } from "./load.js";

export interface WorkerFlags {
  queue: string;
  concurrency?: number | undefined;
  loom?: string | undefined;
  /** The folder whose spells this worker runs; default: the working directory. */
  spells?: string | undefined;
  lockMs?: number | undefined;
  stalledCheckMs?: number | undefined;
  /** `PROVIDER=N/s` each (queue/rates.ts). */
  rate?: string[] | undefined;
}

export async function workerCommand(
  flags: WorkerFlags,
  io: CliIO,
  stop: Promise<void>,
): Promise<number> {
  // A file is resolved here; a URL, or `memory`, is kept as it is.
  const loom =
    flags.loom && flags.loom !== "memory" && !/^[a-z]+:\/\//.test(flags.loom)
      ? resolve(io.cwd, flags.loom)
      : flags.loom;
  let running;
  // SIGTERM or Ctrl-C while the worker is still reaching its Redis: it gives up and ends.
  const starting = new AbortController();
  void stop.then(() => starting.abort(new StoppedBeforeReady()));
  try {
    const rates = Object.fromEntries((flags.rate ?? []).map(parseRate));
    running = await startWorker({
      queue: flags.queue,
      concurrency: flags.concurrency ?? 4,
      loom,
      spells: resolve(io.cwd, flags.spells ?? "."),
      env: io.env,
      lockDuration: flags.lockMs,
      stalledInterval: flags.stalledCheckMs,
      rates,
      signal: starting.signal,
      log: (line) => io.stderr(`${line}\n`),
    });
  } catch (err) {
    if (err instanceof StoppedBeforeReady) {
      io.stderr(`spell worker: ${err.message}\n`);
      return EXIT.ok;
    }
    io.stderr(`${errorMessage(err)}\n`);
    return err instanceof SpellbookError ? exitFor(err) : EXIT.failure;
  }
  await stop;
  io.stderr("spell worker: stopping; running casts finish\n");
  await running.close();
  return EXIT.ok;
}

class StoppedBeforeReady extends Error {
  constructor() {
    super("stopped before the queue's Redis was reached");
  }
}
