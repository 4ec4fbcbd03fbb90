import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { otelFlags } from "./otel-flags.js";

export default class Run extends Command {
  static override description = "Cast a spell on its intent (or --intent) and print the result.";
  static override examples = [
    "spell run grimoire/04-cantrip.yaml",
    'spell run spell.yaml --intent "Summarize README.md" --json',
    "spell run spell.yaml --llm anthropic/claude-sonnet-4-5",
  ];
  static override args = {
    file: Args.string({ description: "spell file (YAML)", required: true }),
  };
  static override flags = {
    intent: Flags.string({ char: "i", description: "the intent; default: the spell's intent:" }),
    json: Flags.boolean({ description: "print only the final result as JSON on stdout" }),
    loom: Flags.string({
      description:
        'loom JSONL file to append to ("memory" for none); default: the spell\'s loom.path',
    }),
    quiet: Flags.boolean({ char: "q", description: "no progress on stderr" }),
    llm: Flags.string({
      description:
        "provider/model for this run instead of the spell's llm, e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, local/qwen3",
    }),
    ...otelFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Run);
    const { runInProcess } = await import("../cli/run-process.js");
    process.exitCode = await runInProcess(args.file, flags);
  }
}
