import { errorMessage } from "../core/errors.js";
import { recordedApprovals, recordedApprover, type Approver } from "../core/approval.js";
import { ReplayLLM, readRecordedTree, type RecordedTree } from "../llm/providers/replay.js";
import type { Turn } from "../loom/records/index.js";
import { loadSpell } from "../spell/index.js";
import type { CaseResult } from "./case.js";
import { compareTree } from "./replay-compare.js";

export { compareThreads } from "./replay-compare.js";

export interface ReplayCheckOptions {
  /** The recorded thread's last turn id; default: the last turn written. */
  thread?: string | undefined;
  /** The intent of the recorded run; default: the one its first turn recorded, else the spell's `intent:`. */
  intent?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Asked about a call the recording never approved (issue 25); absent: such a call is denied. */
  onApproval?: Approver | undefined;
}

/**
 * A recorded run as a regression test: the spell runs again with the `replay` provider playing
 * the recorded replies — to the root entity and to every child it spawned (one replay LLM stands
 * in for every LLM of the spell) — and every turn of every entity must come out as recorded: the
 * same gate calls with the same results, the same ending, children under the same turns. Any
 * real run can be turned into an offline test.
 */
export async function replayCheck(
  spellFile: string,
  loomFile: string,
  options: ReplayCheckOptions = {},
): Promise<CaseResult> {
  const head = {
    rule: "replay",
    name: `${spellFile} reproduces ${loomFile}${options.thread ? ` (thread ${options.thread})` : ""}`,
    location: loomFile,
  };
  const fail = (message: string): CaseResult => ({ ...head, status: "fail", message });
  let tree: RecordedTree;
  try {
    tree = readRecordedTree(loomFile, options.thread);
  } catch (err) {
    return fail(errorMessage(err));
  }
  const llm = new ReplayLLM(tree, loomFile);
  let run: { turns: Turn[]; root: string };
  try {
    const loaded = await loadSpell(spellFile, {
      everyLLM: llm,
      loomPath: "memory",
      ...(options.env ? { env: options.env } : {}),
    });
    const intent = options.intent ?? tree.root.intent ?? loaded.intent;
    if (!intent)
      return fail(
        `no intent: give --intent with the recorded run's intent, or write intent: in ${spellFile}`,
      );
    // Issue 25: the recorded answers answer again; nobody is asked, a call never approved is denied.
    const recorded = [tree.root, ...tree.descendants].flatMap((e) => recordedApprovals(e.turns));
    const result = await loaded.cantrip!.cast(intent, {
      onApproval: recordedApprover(recorded, options.onApproval),
    });
    if (llm.divergence) return fail(`the replayed run diverged: ${llm.divergence}`);
    if (result.status === "failed")
      return fail(`the replayed run failed: ${errorMessage(result.error)}`);
    run = { turns: result.loom.turns(), root: result.entityId };
  } catch (err) {
    return fail(`the replayed run failed: ${errorMessage(err)}`);
  }
  const difference = compareTree(tree, run.turns, run.root);
  if (difference) return fail(difference);
  if (llm.unused() > 0)
    return fail(
      `the replayed run ended with ${llm.unused()} recorded repl${llm.unused() === 1 ? "y" : "ies"} unused`,
    );
  return { ...head, status: "pass", message: "" };
}
