import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class DnaVerify extends Command {
  static override description =
    "Check a signed DNA file: the Ed25519 signature over its canonical JSON, and the profile's major version.";
  static override examples = ["spell dna verify greeter.dna.json --key pub.pem"];
  static override args = {
    file: Args.string({ description: "signed DNA (JSON)", required: true }),
  };
  static override flags = {
    key: Flags.string({ description: "Ed25519 public key (PEM) expected to have signed it" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DnaVerify);
    const { dnaVerifyCommand } = await import("../../cli/dna.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await dnaVerifyCommand(args.file, flags, processIO());
  }
}
