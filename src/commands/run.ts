import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { otelFlags } from "./otel-flags.js";

export default class Run extends Command {
  static override description = "Cast a spell on its intent (or --intent) and print the result.";
  static override examples = [
    "spell run grimoire/04-cantrip.yaml",
    'spell run spell.yaml --intent "Summarize README.md" --json',
    "spell run summarize.yaml --input path=README.md --input words=50 --json",
    "spell run spell.yaml --llm anthropic/claude-sonnet-4-5",
    "spell run spell.yaml --resume ent_019ac2f1-6b3e-7a10-9c4d-5e6f7a8b9c0d",
    "spell run spell.yaml --repeat 20 --concurrency 4",
  ];
  static override args = {
    file: Args.string({ description: "spell file (YAML)", required: true }),
  };
  static override flags = {
    "plain-http": Flags.boolean({
      description:
        "plain HTTP to a registry that is not on loopback, for an oci:// spell (loopback always is)",
    }),
    intent: Flags.string({ char: "i", description: "the intent; default: the spell's intent:" }),
    json: Flags.boolean({ description: "print only the final result as JSON on stdout" }),
    loom: Flags.string({
      description:
        'loom JSONL file or postgres:// URL to append to ("memory" for none); default: the spell\'s loom.path',
    }),
    quiet: Flags.boolean({ char: "q", description: "no progress on stderr" }),
    input: Flags.string({
      description:
        "an input of the spell's inputs: as key=value, read as its type says (repeatable); put into the intent's {{key}}",
      multiple: true,
      // One value per --input: `--input a=1 spell.yaml` leaves spell.yaml the FILE.
      multipleNonGreedy: true,
    }),
    inputs: Flags.string({ description: "a JSON file of inputs (--input values go on top)" }),
    llm: Flags.string({
      description:
        "provider/model for this run instead of the spell's llm, e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, local/qwen3",
    }),
    yes: Flags.boolean({
      description: "approve every call the spell's circle.approve asks about, for this run",
    }),
    approve: Flags.string({
      description:
        "gate=NAME[,gate=GLOB…]: approve these gates for this run; other questions go to the terminal, or are denied",
    }),
    resume: Flags.string({
      description:
        'continue the cast of this entity (interrupted by Ctrl-C, a crash or a kill) from its last recorded turn, with its recorded intent; "last": the spell\'s last entity in the loom',
    }),
    repeat: Flags.integer({
      min: 1,
      description:
        "cast the intent K times, independently, through spell eval's scheduler: its progress, summary (casts ended by done pass; pass@k, pass^k) and report folder",
    }),
    concurrency: Flags.integer({ min: 1, description: "with --repeat: casts at once (default 4)" }),
    out: Flags.string({
      description: "with --repeat: the report folder (default .spellbook/evals/NAME-TIME)",
    }),
    queue: Flags.string({
      description:
        "with --repeat: put the casts on this Redis (redis://HOST:PORT) for `spell worker` processes to run, as spell eval --queue does; --loom then names the loom the workers record to (each worker's own --loom URL, or memory; default: each worker's --loom)",
    }),
    ...otelFlags,
  };

  /**
   * Without FILE, oclif adds a note that arguments must come before a repeatable flag; not so
   * here (--input takes one value each time), so the note goes and the missing FILE stays.
   */
  override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    err.message = err.message.replace(
      /\n\nNote: --input allows multiple values[\s\S]*?arguments\./,
      "",
    );
    return super.catch(err);
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Run);
    const { runInProcess } = await import("../cli/run-process.js");
    process.exitCode = await runInProcess(args.file, flags);
  }
}
