import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomThread extends Command {
  static override description =
    "Write the trajectory that ends at a turn as messages (text, jsonl, openai or anthropic), with secrets redacted.";
  static override examples = [
    "spell loom thread .spellbook/loom.jsonl --turn turn_… --format openai >> train.jsonl",
  ];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    turn: Flags.string({ description: "the id of the trajectory's last turn", required: true }),
    format: Flags.string({
      options: ["text", "jsonl", "openai", "anthropic"],
      default: "text",
      description:
        "text: a transcript; jsonl: a message a line; openai: {messages} on one line; anthropic: {system, messages}",
    }),
    redact: Flags.boolean({
      default: true,
      allowNo: true,
      description: "redact secrets (default); --no-redact writes everything as recorded",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomThread);
    const { loomThreadCommand } = await import("../../cli/loom-tools.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomThreadCommand(
      args.file,
      {
        turn: flags.turn,
        format: flags.format as "text" | "jsonl" | "openai" | "anthropic",
        redact: flags.redact,
      },
      processIO(),
    );
  }
}
