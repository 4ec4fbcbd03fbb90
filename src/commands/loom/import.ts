import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomImport extends Command {
  static override description =
    "Append every record of a loom file to a PostgreSQL loom (idempotent: importing again adds nothing).";
  static override examples = [
    "spell loom import .spellbook/loom.jsonl --to postgres://localhost/spellbook",
  ];
  static override args = { file: Args.string({ description: "loom JSONL file", required: true }) };
  static override flags = {
    to: Flags.string({ description: "the PostgreSQL loom (postgres://…)", required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomImport);
    const { loomImportCommand } = await import("../../cli/loom-import.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomImportCommand(args.file, { to: flags.to }, processIO());
  }
}
