import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { otelFlags } from "./otel-flags.js";

export default class Eval extends Command {
  static override description =
    "Run an eval (kind: eval): its spells over its cases, repeated and scored; a summary per spell × LLM (pass rate, pass@k, pass^k, turns, tokens, cost, latency) and a report folder (results.jsonl, loom, summary.json, junit.xml). Exit 1 below pass.rate or on a regression.";
  static override examples = [
    "spell eval spells/arithmetic-eval.yaml --record --out runs/arithmetic",
    "spell eval spells/arithmetic-eval.yaml --replay runs/arithmetic",
    "spell eval evals.yaml --repeat 5 --concurrency 8 --out .spellbook/evals/today",
    "spell eval evals.yaml --compare .spellbook/evals/yesterday",
  ];
  static override args = {
    file: Args.string({ description: "eval document (YAML, kind: eval)", required: true }),
  };
  static override flags = {
    ...otelFlags,
    "plain-http": Flags.boolean({
      description:
        "plain HTTP to a registry that is not on loopback, for an oci:// spell (loopback always is)",
    }),
    repeat: Flags.integer({
      min: 1,
      description: "independent casts per case (default: the document's repeat, else 1)",
    }),
    concurrency: Flags.integer({
      min: 1,
      description: "casts at once (default: the document's, else 4)",
    }),
    filter: Flags.string({ description: "only cases whose name or intent contains this text" }),
    llm: Flags.string({
      description: "provider/model for every spell, instead of the document's llms",
    }),
    out: Flags.string({
      description: "report folder (default .spellbook/evals/<name>-<timestamp>/)",
    }),
    compare: Flags.string({
      description:
        "a previous run's report folder: list regressed and improved cases; exit 1 on a regression",
    }),
    record: Flags.boolean({
      description: "store every model reply in the report (replies.jsonl) for --replay",
    }),
    queue: Flags.string({
      description:
        "put the casts on this Redis (redis://HOST:PORT) for `spell worker`s to run; same progress, summary and report",
    }),
    loom: Flags.string({
      description:
        "with --queue: the loom every worker records these casts to (each worker's own --loom URL, or memory: a worker refuses any other); default: each worker's --loom",
      dependsOn: ["queue"],
    }),
    replay: Flags.string({
      description:
        "a recorded run's report folder: answer every cast from its own recorded replies, offline",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Eval);
    const { evalCommand } = await import("../cli/eval.js");
    const { processIO } = await import("../cli/io.js");
    // Ctrl-C: no new cast starts, running ones finish, the report is written; a second one exits.
    const stop = new AbortController();
    const onSigint = () => {
      if (stop.signal.aborted) process.exit(130);
      stop.abort();
    };
    process.on("SIGINT", onSigint);
    try {
      process.exitCode = await evalCommand(
        args.file,
        flags,
        processIO(stop.signal),
        process.stderr.isTTY === true,
      );
    } finally {
      process.off("SIGINT", onSigint);
    }
  }
}
