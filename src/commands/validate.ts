import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";

export default class Validate extends Command {
  static override description =
    "Check spell files against the schema and the runtime's rules; print every error at file:line:col.";
  static override strict = false;
  static override args = { files: Args.string({ description: "spell files", required: true }) };

  async run(): Promise<void> {
    const { argv } = await this.parse(Validate);
    const { validateCommand } = await import("../cli/validate.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await validateCommand(argv as string[], processIO());
  }
}
