/**
 * Forking (LOOM-4, §6.6): a new entity whose context is the thread root→N, continuing with a
 * new intent (and optionally another LLM). The original thread is not touched; the fork's first
 * turn hangs from N, so two threads now share a prefix.
 *
 * The context is rebuilt from the recorded turns: each turn becomes its assistant message and
 * observations again, each cast's intent comes from the metadata of its first turn (strategy
 * "messages"). In the code medium the sandbox is rebuilt too (strategy "replay"): the recorded
 * code of root→N runs again in a fresh sandbox, every gate answered from the loom, never run
 * (LOOM-13); a turn that replays differently fails the fork with an error naming it. Not
 * rebuilt: the text an assistant wrote beside its tool calls.
 */
import { Cantrip } from "../../core/cantrip.js";
import type { LLM } from "../../core/contract.js";
import { ConfigError } from "../../core/errors.js";
import { recordedApprovals, recordedApprover, type Approver } from "../../core/approval.js";
import type { EventListener } from "../../core/events.js";
import type { CastResult } from "../../core/result.js";
import type { TurnMark } from "../../core/view.js";
import type { Loom } from "./loom.js";
import { forkPath, rebuildMessages, rebuildTurn } from "../records/index.js";
import { cutOff } from "../records/index.js";

export { forkPath, rebuildMessages } from "../records/index.js";

/**
 * How a fork's state was rebuilt, as the loom records it: messages only, or the code medium's
 * state rebuilt too. The recorded value stays "replay": looms already written hold it.
 */
export const FORK_STRATEGY = "messages";
export const REPLAY_STRATEGY = "replay";

export interface ForkOptions {
  intent: string;
  /** Another LLM for the fork; default the cantrip's. */
  llm?: LLM;
  onEvent?: EventListener;
  signal?: AbortSignal;
  /** Asked about a call the forked thread never approved (issue 25); absent: denied. */
  onApproval?: Approver;
}

/** Forks the thread at `turnId` and runs the new intent on it; the entity is released after. */
export async function fork(
  cantrip: Cantrip<Loom>,
  turnId: string,
  options: ForkOptions,
): Promise<CastResult<Loom>> {
  const { loom } = cantrip;
  if (!loom.get(turnId))
    throw new ConfigError("loom_unknown_turn", `cannot fork: no turn ${turnId} in the loom`);
  const source = options.llm
    ? new Cantrip({
        llm: options.llm,
        identity: cantrip.identity,
        circle: cantrip.circle,
        loom,
        view: cantrip.view,
        name: cantrip.name,
      })
    : cantrip;
  const medium = cantrip.circle.mediumName;
  const codeTool = medium === "code" ? (cantrip.presentation.tools[0]?.name ?? "js") : null;
  const path = forkPath(loom, turnId);
  const head = source.initialMessages();
  const marks: TurnMark[] = [];
  const history = [...head, ...rebuildMessages(path, codeTool, marks, head.length)];
  // The code medium's sandbox comes back by a rebuild: recorded code, gates hydrated (LOOM-13).
  const rebuild = codeTool === null ? undefined : path.filter((t) => !cutOff(t)).map(rebuildTurn);
  const entity = source.summon({
    parentTurnId: turnId,
    history,
    marks,
    fork: { fromTurnId: turnId, strategy: rebuild ? REPLAY_STRATEGY : FORK_STRATEGY },
    ...(rebuild ? { rebuild } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    // Issue 25: what the thread approved is answered from its record, never asked again.
    onApproval: recordedApprover(recordedApprovals(path), options.onApproval),
  });
  try {
    return await entity.send(options.intent);
  } finally {
    entity.dispose();
  }
}
