import { errorMessage } from "../core/errors.js";
import { ReplayLLM, readRecordedThread, repliesOfThread } from "../llm/providers/replay.js";
import type { Turn } from "../loom/turn.js";
import { loadSpell } from "../spell/index.js";
import type { CaseResult } from "./case.js";

export interface ReplayCheckOptions {
  /** The recorded thread's last turn id; default: the last turn written. */
  thread?: string | undefined;
  /** The intent of the recorded run; default: the spell's `intent:`. */
  intent?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/**
 * A recorded run as a regression test: the spell runs again with the `replay` provider playing
 * the recorded replies, and every turn must come out as recorded — the same gate calls with
 * the same results, and the same ending. Any real run can be turned into an offline test.
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
  let recorded: Turn[];
  try {
    recorded = readRecordedThread(loomFile, options.thread);
  } catch (err) {
    return fail(errorMessage(err));
  }
  const llm = new ReplayLLM(repliesOfThread(recorded), loomFile);
  let turns: Turn[];
  try {
    const loaded = await loadSpell(spellFile, {
      llm,
      loomPath: "memory",
      ...(options.env ? { env: options.env } : {}),
    });
    const intent = options.intent ?? loaded.intent;
    if (!intent)
      return fail(
        `no intent: give --intent with the recorded run's intent, or write intent: in ${spellFile}`,
      );
    const result = await loaded.cantrip!.cast(intent);
    if (result.status === "failed")
      return fail(`the replayed run failed: ${errorMessage(result.error)}`);
    turns = result.lastTurnId
      ? result.loom.thread(result.lastTurnId).filter((t) => t.entity_id === result.entityId)
      : [];
  } catch (err) {
    return fail(`the replayed run failed: ${errorMessage(err)}`);
  }
  const difference = compareThreads(recorded, turns);
  if (difference) return fail(difference);
  if (llm.unused() > 0)
    return fail(
      `the replayed run ended with ${llm.unused()} recorded repl${llm.unused() === 1 ? "y" : "ies"} unused`,
    );
  return { ...head, status: "pass", message: "" };
}

/** The first way `actual` differs from `recorded`, turn by turn; null when it reproduces it. */
export function compareThreads(recorded: readonly Turn[], actual: readonly Turn[]): string | null {
  for (let i = 0; i < Math.max(recorded.length, actual.length); i++) {
    const want = recorded[i];
    const got = actual[i];
    const at = `turn ${i + 1}`;
    if (!want)
      return `${at}: the replayed run has more turns than the recording (${actual.length} vs ${recorded.length})`;
    if (!got)
      return `${at}: the replayed run ended after ${actual.length} turns; the recording has ${recorded.length}`;
    if (want.gate_calls.length !== got.gate_calls.length) {
      return `${at}: ${got.gate_calls.length} gate calls, recorded ${want.gate_calls.length}`;
    }
    for (let j = 0; j < want.gate_calls.length; j++) {
      const w = want.gate_calls[j]!;
      const g = got.gate_calls[j]!;
      for (const key of ["gate_name", "arguments", "result", "is_error"] as const) {
        if (w[key] !== g[key]) {
          return `${at}, gate call ${j + 1} (${w.gate_name}): ${key} ${JSON.stringify(g[key])}, recorded ${JSON.stringify(w[key])}`;
        }
      }
    }
    for (const key of ["terminated", "truncated", "reason"] as const) {
      if (want[key] !== got[key])
        return `${at}: ${key} ${JSON.stringify(got[key])}, recorded ${JSON.stringify(want[key])}`;
    }
  }
  return null;
}
