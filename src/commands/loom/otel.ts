import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class LoomOtel extends Command {
  static override description =
    "Send a loom (a file or a database) to an OpenTelemetry collector as GenAI spans (invoke_agent, chat, execute_tool), as --otel does live.";
  static override examples = ["spell loom otel .spellbook/loom.jsonl --to http://localhost:4318"];
  static override args = {
    file: Args.string({ description: "loom JSONL file, or a postgres:// URL", required: true }),
  };
  static override flags = {
    to: Flags.string({
      description:
        "the collector's OTLP/HTTP URL (e.g. http://localhost:4318); default: OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT",
    }),
    "otel-content": Flags.boolean({
      description: "also send utterances, gate arguments and results (redacted); off by default",
    }),
    name: Flags.string({
      description: "the root agents' name; default: the loom file's (or database's) name",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LoomOtel);
    const { loomOtelCommand } = await import("../../cli/otel/loom-otel.js");
    const { processIO } = await import("../../cli/io.js");
    process.exitCode = await loomOtelCommand(args.file, flags, processIO());
  }
}
