/**
 * `spell run FILE --repeat K [--concurrency C]`: K independent casts of the spell's intent, run
 * as an eval of one case through `runPlan` (eval's scheduler, progress line, summary, report
 * folder and exit code). A cast passes when it ended by `done`; pass@k and pass^k are eval's.
 * `dispatch` says who casts: this process by default (runEval), workers on a queue otherwise.
 */
import { basename, extname, resolve } from "node:path";
import type { EvalPlan } from "../spell/kinds/index.js";
import { runPlan, type EvalDispatch, type EvalFlags } from "./eval.js";
import type { CliIO } from "./io.js";

export interface RepeatFlags extends EvalFlags {
  repeat: number;
}

/** The plan of K casts of `intent` by the spell at `file`. */
export function repeatPlan(file: string, intent: string, flags: RepeatFlags): EvalPlan {
  const spell = resolve(file);
  return {
    name: basename(file, extname(file)),
    file: spell,
    spells: [spell],
    llms: undefined, // the spell's own LLM; --llm replaces it as it does for spell eval
    cases: [{ id: "intent", intent, expect: [{ reason: "done" }], location: file }],
    repeat: flags.repeat,
    concurrency: flags.concurrency ?? 4,
    providerConcurrency: {},
    // No threshold: the summary says how many ended by done; only an errored cast fails the run.
    passRate: 0,
    regression: 0,
  };
}

export function repeatRun(
  file: string,
  intent: string,
  flags: RepeatFlags,
  io: CliIO,
  how: {
    tty?: boolean;
    dispatch?: EvalDispatch | undefined;
    /** How the spell's `oci://` references resolved when it was loaded (its lock). */
    resolveRemote?: ((ref: string) => Promise<string>) | undefined;
  } = {},
): Promise<number> {
  const plan = repeatPlan(file, intent, flags);
  return runPlan(plan, flags, io, how.tty === true, how.dispatch, how.resolveRemote);
}
