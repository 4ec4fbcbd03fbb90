import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class FlowRun extends Command {
  static override description =
    "Run a kind: flow document on JSONL messages (one payload a line) and print the emitted payloads as JSONL.";
  static override examples = [
    `echo '{"text":"hi"}' | spell flow spells/greeter-flow.yaml`,
    "spell flow spells/greeter-flow.yaml --in messages.jsonl --trace",
  ];
  static override args = { file: Args.string({ description: "flow file (YAML)", required: true }) };
  static override flags = {
    in: Flags.string({ description: "JSONL file of inbound messages; default stdin" }),
    loom: Flags.string({
      description:
        'loom JSONL file or postgres:// URL the casts record into ("memory" for none); default each cast spell\'s loom.path',
    }),
    trace: Flags.boolean({
      description:
        "print each cycle's conformance trace (activations, emissions, tape delta) instead",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(FlowRun);
    const { flowCommand } = await import("../cli/flow-run.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await flowCommand(args.file, flags, processIO());
  }
}
