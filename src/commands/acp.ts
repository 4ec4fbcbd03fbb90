import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Acp extends Command {
  static override description =
    "Serve a spell as an Agent Client Protocol agent on stdio (for editors such as Zed). " +
    "It waits idle for requests; stdout carries protocol messages only, logs go to stderr.";
  static override examples = [
    "spell acp spell.yaml",
    "spell acp spell.yaml --check",
    "spell acp spell.yaml --debug 2>acp.log",
  ];
  static override args = {
    file: Args.string({ description: "spell file (YAML)", required: true }),
  };
  static override flags = {
    check: Flags.boolean({
      description: "validate the spell and its provider setup, then exit",
      default: false,
    }),
    debug: Flags.boolean({
      description: "log every protocol message on stderr (redacted)",
      default: false,
    }),
    loom: Flags.string({
      description: 'loom JSONL file or postgres:// URL ("memory" for none); default: the spell\'s',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Acp);
    const { acpCommand } = await import("../cli/acp.js");
    const { processIO } = await import("../cli/io.js");
    const stop = new Promise((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    process.exitCode = await acpCommand(
      args.file,
      { check: flags.check, debug: flags.debug, loom: flags.loom },
      processIO(),
      { input: process.stdin, output: process.stdout, stop },
    );
  }
}
