import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomExport extends Command {
  static override description =
    "Print a loom (a file or a postgres:// URL) as JSONL, with secrets redacted (API keys, ${env:…} values, common token shapes).";
  static override examples = [
    "spell loom export .spellbook/loom.jsonl > shared.jsonl",
    "spell loom export .spellbook/loom.jsonl --spell spell.yaml",
    "spell loom export .spellbook/loom.jsonl --no-redact   # the owner's own copy",
  ];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    redact: Flags.boolean({
      default: true,
      allowNo: true,
      description: "redact secrets (default); --no-redact exports everything as recorded",
    }),
    spell: Flags.string({ description: "a spell whose ${env:…} values are redacted too" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomExport);
    const { loomExportCommand } = await import("../../cli/loom-export.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomExportCommand(
      args.file,
      { redact: flags.redact, spell: flags.spell },
      processIO(),
    );
  }
}
