import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomFork extends Command {
  static override description =
    "Fork a loom's thread from a turn (LOOM-4): each fork is a new entity whose context is the thread up to that turn — the code medium's variables rebuilt by replay, gates answered from the loom — continuing with an intent, on the spell's LLM or --llm. Prints one line a fork: its entity and last turn (to reward with loom reward), how it ended and its result.";
  static override examples = [
    "spell loom fork .spellbook/loom.jsonl --turn turn_…",
    'spell loom fork .spellbook/loom.jsonl --turn 1 --entity ent_019ac2f0-1d2e-7f3a-8b4c-0d1e2f3a4b5c --intent "Check it again." --json',
    "spell loom fork runs/10.jsonl --turn 1 --times 3 --quiet # the loom holds one entity: its turn 1",
  ];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    turn: Flags.string({
      description:
        "the turn to fork from: its id, or its sequence number in the entity (--entity, when the loom holds more than one)",
      required: true,
    }),
    entity: Flags.string({ description: "the entity whose turn --turn SEQ names" }),
    intent: Flags.string({
      description: "what the fork is asked; default the intent of the cast the turn belongs to",
    }),
    llm: Flags.string({
      description: "provider/model for the forks instead of the spell's llm, e.g. openai/gpt-4.1",
    }),
    times: Flags.integer({ description: "how many forks, each a new entity", default: 1, min: 1 }),
    spell: Flags.string({
      description:
        "the spell to fork with; default the one the entity was summoned or run from (recorded beside the loom)",
    }),
    json: Flags.boolean({ description: "print each fork's result as a JSON line on stdout" }),
    quiet: Flags.boolean({ char: "q", description: "no progress on stderr" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomFork);
    const { loomForkCommand } = await import("../../cli/loom-fork.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomForkCommand(args.file, flags, processIO());
  }
}
