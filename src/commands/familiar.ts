import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Familiar extends Command {
  static override description =
    "Summon the Familiar on a workspace for an interactive session: a code-medium coordinator that observes the folder (list_dir, read, search) and delegates to child cantrips. Its loom is DIR/.spellbook/familiar.jsonl; running it again on the same folder continues the same entity.";
  static override examples = [
    "spell familiar",
    "spell familiar ../my-project --llm openai/gpt-4.1",
    'echo "What does this project do?" | spell familiar . --quiet',
  ];
  static override args = {
    dir: Args.string({ description: "the workspace folder (default: the current folder)" }),
  };
  static override flags = {
    json: Flags.boolean({ description: "print each result as a JSON line on stdout" }),
    plain: Flags.boolean({
      description:
        "line mode on a terminal too (by default a terminal opens the full-screen UI; piped input and --json use line mode)",
    }),
    loom: Flags.string({
      description: 'loom JSONL file ("memory" for none); default: DIR/.spellbook/familiar.jsonl',
    }),
    quiet: Flags.boolean({ char: "q", description: "no progress on stderr" }),
    llm: Flags.string({
      description: "provider/model for the Familiar and its children, e.g. openai/gpt-4.1",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Familiar);
    const { familiarCommand } = await import("../cli/familiar.js");
    const { withProcessSummon } = await import("../cli/summon.js");
    const path = await import("node:path");
    // The Familiar's process works in DIR: a bash child's workspace is the working folder. Paths
    // typed on the command line (DIR, --loom) are resolved first, where they were typed.
    const workspace = path.resolve(args.dir ?? ".");
    const loom =
      flags.loom === undefined || flags.loom === "memory" ? flags.loom : path.resolve(flags.loom);
    try {
      process.chdir(workspace);
    } catch {
      // not a folder: familiarCommand says so
    }
    process.exitCode = await withProcessSummon((io) =>
      familiarCommand(workspace, { ...flags, loom }, io),
    );
  }
}
