import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Council extends Command {
  static override description =
    "Talk to a council (kind: council) line by line: each line is a query; 'exit' quits, 'trace on/off' toggles the reasoning trace.";
  static override examples = [
    "spell council spells/council.yaml",
    "echo 'Should we?' | spell council council.yaml",
  ];
  static override args = {
    file: Args.string({ description: "council document (YAML)", required: true }),
  };
  static override flags = {
    loom: Flags.string({
      description:
        'loom JSONL file to append to ("memory" for none); default: the document\'s loom.path',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Council);
    const { councilChat } = await import("../cli/council-chat.js");
    const { processIO } = await import("../cli/io.js");
    const { createInterface } = await import("node:readline");
    const lines = createInterface({ input: process.stdin, terminal: false });
    process.exitCode = await councilChat(args.file, flags, processIO(), lines);
    lines.close();
  }
}
