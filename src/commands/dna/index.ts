import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Dna extends Command {
  static override description =
    "Print a flow's DNA: its receivers, senders and hooks as deterministic JSON, optionally signed (Ed25519). `spell dna verify` checks a signed one.";
  static override examples = [
    "spell dna spells/greeter-flow.yaml",
    "spell dna spells/greeter-flow.yaml --sign key.pem > greeter.dna.json",
    "spell dna verify greeter.dna.json --key pub.pem",
  ];
  static override args = { file: Args.string({ description: "flow file (YAML)", required: true }) };
  static override flags = {
    sign: Flags.string({ description: "Ed25519 private key (PEM) to sign the DNA with" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Dna);
    const { dnaCommand } = await import("../../cli/dna.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await dnaCommand(args.file, flags, processIO());
  }
}
