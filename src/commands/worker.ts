import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Worker extends Command {
  static override description =
    "Take casts from a queue on Redis (BullMQ) and run them: the casts `spell eval --queue` puts there. Runs until SIGTERM or Ctrl-C, then lets its running casts finish.";
  static override examples = [
    "spell worker --queue redis://127.0.0.1:6379",
    "spell worker --queue redis://10.0.0.5:6379 --concurrency 8 --loom postgres://spell@10.0.0.6/looms",
    "spell worker --queue redis://127.0.0.1:6379 --rate openai=10/s --rate anthropic=50/m",
  ];
  static override flags = {
    queue: Flags.string({
      description: "the Redis the queue lives on: redis://HOST:PORT",
      required: true,
    }),
    concurrency: Flags.integer({ min: 1, description: "casts at once; default 4" }),
    loom: Flags.string({
      description:
        "the loom this worker records to (a loom file or URL, or memory); a job may name it (a URL, without its password), memory, or none — any other loom is refused; default: memory",
    }),
    spells: Flags.string({
      description:
        "the folder whose spells this worker runs: a job naming a spell elsewhere is refused (anyone who can write to the Redis can add a job); default: the folder it was started in",
    }),
    "lock-ms": Flags.integer({
      min: 1000,
      max: 2147483647, // BullMQ waits it (and half of it) with setTimeout: the longest a timer waits
      description:
        "how long a cast stays this worker's without a lock renewal before another worker may take it over (BullMQ lockDuration); default 30000",
    }),
    "stalled-check-ms": Flags.integer({
      min: 500,
      max: 2147483647, // BullMQ waits it with setTimeout: the longest a timer waits
      description:
        "how often this worker looks for casts whose worker stopped renewing (BullMQ stalledInterval); default 30000",
    }),
    rate: Flags.string({
      multiple: true,
      description:
        "at most N queries to PROVIDER per second (/s), minute (/m) or hour (/h), counted over every worker on this Redis: PROVIDER=N/s; repeat for each provider",
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    const { workerCommand } = await import("../cli/worker.js");
    const { processIO } = await import("../cli/io.js");
    const stop = new Promise<void>((resolve) => {
      process.once("SIGTERM", () => resolve());
      process.once("SIGINT", () => resolve());
    });
    process.exitCode = await workerCommand(
      {
        queue: flags.queue,
        concurrency: flags.concurrency,
        loom: flags.loom,
        spells: flags.spells,
        lockMs: flags["lock-ms"],
        stalledCheckMs: flags["stalled-check-ms"],
        rate: flags.rate,
      },
      processIO(),
      stop,
    );
  }
}
