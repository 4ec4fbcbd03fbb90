import { Args, Command, Flags } from "@oclif/core";

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
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Test);
    const { testCommand } = await import("../cli/test.js");
    const { processIO } = await import("../cli/io.js");
    process.exitCode = await testCommand(
      argv as string[],
      { reporter: flags.reporter as "text" | "json" },
      processIO(),
    );
  }
}
