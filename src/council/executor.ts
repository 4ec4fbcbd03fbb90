/**
 * The executor (brief §2.4): runs a TriageOutput mechanically — short-circuit, or the loops of
 * its grammar with the red team in every loop, early exit only after loop 2 and only when the
 * delta strategy finds no change, then synthesis. It makes no semantic decision.
 */
import type { LLM } from "../core/contract.js";
import type { CouncilCalls } from "./calls.js";
import type { DeltaStrategy } from "./delta.js";
import { attachCompletedLoops } from "./events.js";
import { debate } from "./grammars/debate.js";
import type { Grammar, LoopOutcome, RedTeamSeat } from "./grammars/grammar.js";
import { parallel } from "./grammars/parallel.js";
import { sequential } from "./grammars/sequential.js";
import { newLoopRecord, type LoopRecord, type LoopRecordFactory } from "./loop-record.js";
import { redTeamSystemPrompt } from "./prompts/red-team-prompts.js";
import { seatKeys, type DeliberatingSeat } from "./seats.js";
import { synthesize } from "./synthesis.js";
import type { ExecutorResult, LoopGrammar, TriageOutput } from "./types.js";

const GRAMMARS: Readonly<Record<LoopGrammar, Grammar>> = { parallel, sequential, debate };

export interface ExecutorOptions {
  /** Seats without a model hint, short-circuit. */
  defaultLLM: LLM;
  redTeamLLM: LLM;
  synthesizerLLM: LLM;
  /** Per seat of the council, in seat order: the LLM its model hint names; undefined: no hint. */
  seatLLMs: readonly (LLM | undefined)[];
  delta: DeltaStrategy;
  observability: boolean;
  /** Makes trace records; called only when observability is on (§5.3). */
  newLoopRecord?: LoopRecordFactory;
}

export async function execute(
  triage: TriageOutput,
  userQuery: string,
  calls: CouncilCalls,
  options: ExecutorOptions,
): Promise<ExecutorResult> {
  if (triage.shortCircuitAllowed && triage.complexity === "simple")
    return shortCircuit(triage, calls, options.defaultLLM);
  const { seats, redTeam } = splitSeats(triage, options);
  const grammar = GRAMMARS[triage.loopGrammar];
  const makeRecord = options.newLoopRecord ?? newLoopRecord;
  const trace: LoopRecord[] | null = options.observability ? [] : null;
  const outcomes: LoopOutcome[] = [];
  let prior: LoopOutcome | null = null;
  let earlyExit = false;
  try {
    for (let loop = 1; loop <= triage.loopCount; loop++) {
      const outcome = await grammar({ triage, seats, redTeam, calls, loop, prior });
      outcomes.push(outcome);
      // Checked from loop 2 on, and only when early exit is allowed (§4.1 step 5).
      const checked = triage.allowEarlyExit && loop >= 2;
      const delta = checked
        ? await options.delta.detect(prior?.responses ?? null, outcome.responses, { loop, calls })
        : true;
      if (trace) trace.push(makeRecord(loop, outcome.responses, outcome.critique, delta));
      prior = outcome;
      if (checked && !delta) {
        earlyExit = loop < triage.loopCount;
        break;
      }
    }
    const finalResponse = await synthesize(
      options.synthesizerLLM,
      calls,
      triage,
      userQuery,
      outcomes,
    );
    return { finalResponse, loopsExecuted: outcomes.length, earlyExit, reasoningTrace: trace };
  } catch (err) {
    // The loops already paid for go back with the error (completedLoopsOf), trace or not.
    attachCompletedLoops(
      err,
      outcomes.map((o, i) => ({
        loopNumber: i + 1,
        councilResponses: o.responses,
        redTeamCritique: o.critique,
      })),
    );
    throw err;
  }
}

/** SIMPLE and allowed: one call, [system: synthesis instruction] [user: query], no loop. */
async function shortCircuit(
  triage: TriageOutput,
  calls: CouncilCalls,
  llm: LLM,
): Promise<ExecutorResult> {
  const finalResponse = await calls.ask({
    llm,
    messages: [
      { role: "system", content: triage.synthesisInstruction },
      { role: "user", content: triage.reconstructedQuery },
    ],
    site: { phase: "short_circuit" },
  });
  return { finalResponse, loopsExecuted: 0, earlyExit: true, reasoningTrace: null };
}

/**
 * The red team's seat apart, the deliberating seats keyed. The red team's system prompt is the
 * base frame + the flavor, complete (§2.3); its seat's model hint still picks its LLM.
 */
function splitSeats(
  triage: TriageOutput,
  options: ExecutorOptions,
): { seats: DeliberatingSeat[]; redTeam: RedTeamSeat } {
  const keys = seatKeys(triage.council);
  const seats: DeliberatingSeat[] = [];
  let redTeamLLM = options.redTeamLLM;
  triage.council.forEach((seat, i) => {
    const hinted = options.seatLLMs[i];
    if (seat.role === "red_team") redTeamLLM = hinted ?? redTeamLLM;
    else seats.push({ key: keys[i]!, seat, llm: hinted ?? options.defaultLLM });
  });
  return {
    seats,
    redTeam: { systemPrompt: redTeamSystemPrompt(triage.redTeamFlavor), llm: redTeamLLM },
  };
}
