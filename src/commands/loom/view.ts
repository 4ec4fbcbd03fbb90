import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomView extends Command {
  static override description =
    "Write a loom as one self-contained HTML page (data and script inline, redacted) to share.";
  static override examples = ["spell loom view .spellbook/loom.jsonl --out page.html"];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    out: Flags.string({ char: "o", description: "the HTML file to write", required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomView);
    const { loomViewCommand } = await import("../../cli/view.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomViewCommand(args.file, { out: flags.out }, processIO());
  }
}
