import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";

export default class LoomTree extends Command {
  static override description =
    "Draw a loom (a file or a postgres:// URL) as a tree: every turn under its parent (forks, children, a council's phases), redacted.";
  static override examples = ["spell loom tree .spellbook/loom.jsonl"];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(LoomTree);
    const { loomTreeCommand } = await import("../../cli/loom-export.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomTreeCommand(args.file, processIO());
  }
}
