import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Lock extends Command {
  static override description =
    "Write spell.lock beside a spell: every registry reference it reaches pinned to its digest, every MCP server script it starts hashed. A run with a lock uses exactly those bytes and refuses anything else.";
  static override examples = [
    "spell lock triage.yaml",
    "spell lock triage.yaml --update",
    "spell lock oci://localhost:5000/team/summarize:1",
  ];
  static override args = {
    target: Args.string({
      description: "spell file, or oci://REF (then the lock is the working folder's)",
      required: true,
    }),
  };
  static override flags = {
    update: Flags.boolean({ description: "move every pin to what the references name now" }),
    "plain-http": Flags.boolean({
      description: "plain HTTP to a registry that is not on loopback (loopback always is)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Lock);
    const { lockCommand } = await import("../cli/share.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await lockCommand(
      args.target,
      { update: flags.update, plainHttp: flags["plain-http"] },
      processIO(),
    );
  }
}
