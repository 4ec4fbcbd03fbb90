import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class View extends Command {
  static override description =
    "Show looms and eval runs in the browser: entities, turn trees with forks, folds and children, turns whole, two threads side by side; eval runs as charts, two runs compared; fork from a turn with --allow-fork; live as turns land; redacted (loopback by default).";
  static override examples = [
    "spell view",
    "spell view .spellbook/loom.jsonl --open",
    "spell view runs/ --port 9000",
    "SPELLBOOK_TOKEN=s3cret spell view runs/ --host 0.0.0.0",
    "spell view .spellbook/loom.jsonl --allow-fork",
  ];
  static override args = {
    target: Args.string({
      description:
        "a loom file, a folder of looms and eval runs, or a postgres:// loom; default .spellbook",
    }),
  };
  static override flags = {
    port: Flags.integer({ char: "p", description: "port (0: any free port); default 8788" }),
    host: Flags.string({ description: "address to bind; default 127.0.0.1" }),
    token: Flags.string({
      description: "token every request must carry (or SPELLBOOK_TOKEN); open /?token=… once",
    }),
    open: Flags.boolean({ description: "open the page in the system's browser" }),
    "allow-fork": Flags.boolean({
      description:
        "let the page fork a thread from a turn (spends tokens; loopback or --token only)",
    }),
    "fork-llm": Flags.string({
      description: "with --allow-fork: a provider/model the page offers for a fork (repeatable)",
      multiple: true,
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(View);
    const { viewCommand } = await import("../cli/view.js");
    const { processIO } = await import("../cli/io.js");
    const stop = new Promise((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    process.exitCode = await viewCommand(
      args.target,
      {
        port: flags.port,
        host: flags.host,
        token: flags.token,
        open: flags.open,
        allowFork: flags["allow-fork"],
        forkLlm: flags["fork-llm"],
      },
      processIO(),
      stop,
    );
  }
}
