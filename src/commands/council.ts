import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Council extends Command {
  static override description =
    "Talk to a council (kind: council) line by line: each line is a query; 'exit' quits, 'trace on/off' toggles the reasoning trace.";
  static override examples = [
    "spell council spells/council.yaml",
    "echo 'Should we?' | spell council council.yaml",
    "spell council spells/council.yaml --llm openrouter/auto",
  ];
  static override args = {
    file: Args.string({ description: "council document (YAML)", required: true }),
  };
  static override flags = {
    llm: Flags.string({
      description:
        "provider/model for every LLM of the document: triage, seats, red team, judge, synthesizer",
    }),
    loom: Flags.string({
      description:
        'loom JSONL file or postgres:// URL to append to ("memory" for none); default: the document\'s loom.path',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Council);
    const { councilChat } = await import("../cli/council-chat.js");
    const { processIO } = await import("../cli/io.js");
    const { createInterface } = await import("node:readline");
    const lines = createInterface({ input: process.stdin, terminal: false });
    // Ctrl-C while a query runs ends that query; between queries it ends the session as usual.
    const interrupts = {
      on: (h: () => void) => void process.on("SIGINT", h),
      off: (h: () => void) => void process.off("SIGINT", h),
    };
    process.exitCode = await councilChat(args.file, flags, processIO(), lines, interrupts);
    lines.close();
  }
}
