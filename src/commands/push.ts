import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Push extends Command {
  static override description =
    "Pack a spell and every file it names (child spells, $file data, MCP server scripts) as one OCI artifact, push it to a registry and print its digest.";
  static override examples = [
    "spell push spells/summarize.yaml localhost:5000/team/summarize:1",
    "spell push triage.yaml ghcr.io/acme/spells/triage:2",
  ];
  static override args = {
    file: Args.string({ description: "spell file (YAML)", required: true }),
    ref: Args.string({
      description: "HOST[:PORT]/REPOSITORY[:TAG] (tag default: latest)",
      required: true,
    }),
  };
  static override flags = {
    "plain-http": Flags.boolean({
      description: "plain HTTP to a registry that is not on loopback (loopback always is)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Push);
    const { pushCommand } = await import("../cli/share.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await pushCommand(
      args.file,
      args.ref,
      { plainHttp: flags["plain-http"] },
      processIO(),
    );
  }
}
