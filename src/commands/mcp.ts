import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Mcp extends Command {
  static override description =
    "Serve spells as tools of a Model Context Protocol server on stdio (one tool per spell). " +
    "stdout carries protocol messages only; logs go to stderr.";
  static override examples = ["spell mcp summarize.yaml", "spell mcp a.yaml b.yaml --loom memory"];
  // One or more spell files.
  static override strict = false;
  static override args = {
    file: Args.string({
      description: "spell file (YAML); give several for several tools",
      required: true,
    }),
  };
  static override flags = {
    "plain-http": Flags.boolean({
      description:
        "plain HTTP to a registry that is not on loopback, for an oci:// spell (loopback always is)",
    }),
    loom: Flags.string({
      description: 'loom JSONL file or postgres:// URL ("memory" for none); default: each spell\'s',
    }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Mcp);
    const { mcpCommand } = await import("../cli/mcp.js");
    const { processIO } = await import("../cli/io.js");
    const stop = new Promise((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    process.exitCode = await mcpCommand(
      argv as string[],
      { loom: flags.loom, plainHttp: flags["plain-http"] },
      processIO(),
      {
        input: process.stdin,
        output: process.stdout,
        stop,
      },
    );
  }
}
