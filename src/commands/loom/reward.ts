import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomReward extends Command {
  static override description =
    "Append a reward to a turn of a loom (a record of its own: the turn is never rewritten), with an optional reason.";
  static override examples = [
    'spell loom reward .spellbook/loom.jsonl --turn turn_… --value 1 --reason "correct"',
  ];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    turn: Flags.string({ description: "the turn's id", required: true }),
    value: Flags.string({ description: "the reward, a finite number", required: true }),
    reason: Flags.string({ description: "why (kept in the record)" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomReward);
    const { loomRewardCommand } = await import("../../cli/loom-tools.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomRewardCommand(
      args.file,
      { turn: flags.turn, value: flags.value, reason: flags.reason },
      processIO(),
    );
  }
}
