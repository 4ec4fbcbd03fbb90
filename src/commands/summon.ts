import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { otelFlags } from "./otel-flags.js";

export default class Summon extends Command {
  static override description =
    "Summon a spell's entity for an interactive session: each line is an intent to the same entity. On a terminal it opens a full-screen UI (turns as blocks, approvals in place, a status line; /help lists its keys); --plain, piped input or --json keep the line mode. Ctrl-C stops the current cast; Ctrl-C twice at the prompt, or Ctrl-D, ends the session. A spell that names its loom (loom.path) continues its entity there when the loom holds one of this spell (--new starts a fresh one); --entity continues an entity recorded in the loom; --continue the last one of this spell in it.";
  static override examples = [
    "spell summon grimoire/11-persistence.yaml --loom /tmp/11.jsonl",
    "spell summon spell.yaml --entity ent_019ac2f0-1d2e-7f3a-8b4c-0d1e2f3a4b5c",
    "spell summon spell.yaml --continue",
    "spell summon spell.yaml --new",
    'printf "first\\nsecond\\n" | spell summon spell.yaml --quiet',
  ];
  static override args = {
    file: Args.string({ description: "spell file (YAML)", required: true }),
  };
  static override flags = {
    entity: Flags.string({
      char: "e",
      description: "continue this entity (its id was printed when it was summoned)",
    }),
    continue: Flags.boolean({
      char: "c",
      description:
        "continue the last entity of this spell in this loom (a new one when there is none)",
    }),
    new: Flags.boolean({
      description:
        "a new entity, even when the spell's own loom holds one of this spell (which is continued by default)",
    }),
    json: Flags.boolean({ description: "print each result as a JSON line on stdout" }),
    plain: Flags.boolean({
      description:
        "line mode on a terminal too (by default a terminal opens the full-screen UI; piped input and --json use line mode)",
    }),
    loom: Flags.string({
      description:
        'loom JSONL file or postgres:// URL to append to ("memory" for none); default: the spell\'s loom.path',
    }),
    quiet: Flags.boolean({ char: "q", description: "no progress on stderr" }),
    llm: Flags.string({
      description:
        "provider/model for this session instead of the spell's llm, e.g. openai/gpt-4.1",
    }),
    yes: Flags.boolean({
      description: "approve every call the spell's circle.approve asks about, for this run",
    }),
    approve: Flags.string({
      description:
        "gate=NAME[,gate=GLOB…]: approve these gates for this run; other questions go to the terminal, or are denied",
    }),
    ...otelFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Summon);
    const { runSummon, withProcessSummon } = await import("../cli/summon.js");
    process.exitCode = await withProcessSummon((io) => runSummon(args.file, flags, io));
  }
}
