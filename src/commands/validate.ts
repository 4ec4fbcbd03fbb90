import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";

export default class Validate extends Command {
  static override description =
    "Check spell files against the schema and the runtime's rules; print every error at file:line:col (exit 3 when there is one), the warnings, and the gates a spell asks before calling.";
  static override examples = [
    "spell validate spells/arithmetic.yaml",
    "spell validate grimoire/04-cantrip.yaml spells/ask-before-write.yaml",
  ];
  static override strict = false;
  static override args = { files: Args.string({ description: "spell files", required: true }) };

  async run(): Promise<void> {
    const { argv } = await this.parse(Validate);
    const { validateCommand } = await import("../cli/validate.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await validateCommand(argv as string[], processIO());
  }
}
