import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Inspect extends Command {
  static override description =
    "Show a spell in a registry without running it: its digest, manifest annotations, interface (inputs, output_schema) and files.";
  static override examples = [
    "spell inspect localhost:5000/team/summarize:1",
    "spell inspect ghcr.io/acme/spells/triage:2 --json",
  ];
  static override args = {
    ref: Args.string({ description: "HOST[:PORT]/REPOSITORY[:TAG|@DIGEST]", required: true }),
  };
  static override flags = {
    json: Flags.boolean({ description: "print the manifest, config and files as JSON" }),
    "plain-http": Flags.boolean({
      description: "plain HTTP to a registry that is not on loopback (loopback always is)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Inspect);
    const { inspectCommand } = await import("../cli/share.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await inspectCommand(
      args.ref,
      { json: flags.json, plainHttp: flags["plain-http"] },
      processIO(),
    );
  }
}
