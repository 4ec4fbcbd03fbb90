import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Pull extends Command {
  static override description =
    "Fetch a spell from a registry (every blob checked against its digest, no path leaving its folder), keep it in the cache and unpack it into a folder; print its main file.";
  static override examples = [
    "spell pull localhost:5000/team/summarize:1",
    "spell pull ghcr.io/acme/spells/triage:2 --out triage",
  ];
  static override args = {
    ref: Args.string({ description: "HOST[:PORT]/REPOSITORY[:TAG|@DIGEST]", required: true }),
  };
  static override flags = {
    out: Flags.string({
      description: "the folder to unpack into (default: the repository's last name)",
    }),
    "plain-http": Flags.boolean({
      description: "plain HTTP to a registry that is not on loopback (loopback always is)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Pull);
    const { pullCommand } = await import("../cli/share.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await pullCommand(
      args.ref,
      { out: flags.out, plainHttp: flags["plain-http"] },
      processIO(),
    );
  }
}
