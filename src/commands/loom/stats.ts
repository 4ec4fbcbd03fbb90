import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomStats extends Command {
  static override description =
    "Per intent: casts, terminated/truncated, turns, tokens, cost, and pass@k / pass^k over the casts that carry a reward (correct: reward ≥ --threshold, default 1).";
  static override examples = [
    "spell loom stats .spellbook/loom.jsonl",
    "spell loom stats .spellbook/loom.jsonl --json --k 1,5",
  ];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    json: Flags.boolean({ description: "print one JSON object (snake_case keys)" }),
    k: Flags.string({ description: "the k of pass@k and pass^k, comma-separated (default 1,3)" }),
    threshold: Flags.string({
      description: "the reward a cast needs to count as correct (default 1: a full score)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomStats);
    const { loomStatsCommand } = await import("../../cli/loom-tools.js");
    const { processIO } = await import("../../cli/io.js");
    const k = flags.k?.split(",").map((s) => Number(s.trim()));
    const threshold = flags.threshold === undefined ? undefined : Number(flags.threshold);
    if (
      k?.some((n) => !Number.isInteger(n) || n < 1) ||
      (threshold !== undefined && !Number.isFinite(threshold))
    )
      this.error("--k takes whole numbers ≥ 1 (1,3,5) and --threshold a number", { exit: 3 });
    process.exitCode = await loomStatsCommand(
      args.file,
      { json: flags.json, k, threshold },
      processIO(),
    );
  }
}
