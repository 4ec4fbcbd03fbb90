import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Test extends Command {
  static override description =
    "Run conformance cases: tests.yaml and the tests inside spells (default: tests.yaml, spells/, grimoire/).";
  static override strict = false;
  static override args = {
    files: Args.string({ description: "tests.yaml-style suites or spell files" }),
  };
  static override flags = {
    reporter: Flags.string({
      options: ["text", "json"],
      default: "text",
      description: "output format",
    }),
    replay: Flags.string({
      description:
        "a recorded loom (JSONL): the spell must reproduce its thread and its children's, replies played back offline",
    }),
    thread: Flags.string({
      description:
        "with --replay: the id of the recorded thread's last turn (default: the last turn written)",
    }),
    intent: Flags.string({
      description:
        "with --replay: the recorded run's intent (default: the one its first turn recorded, else the spell's intent:)",
    }),
  };
  static override examples = [
    "spell test",
    "spell test tests.yaml spells/summarize-folder.yaml",
    "spell test spell.yaml --replay .spellbook/loom.jsonl",
  ];

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Test);
    const { testCommand } = await import("../cli/test.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await testCommand(
      argv as string[],
      {
        reporter: flags.reporter as "text" | "json",
        replay: flags.replay,
        thread: flags.thread,
        intent: flags.intent,
      },
      processIO(),
    );
  }
}
