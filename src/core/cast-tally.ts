/**
 * A cast's tally — the second concept that lived in loop.ts: what the cast has done so far
 * (turns, tokens, USD spent, gates called, its last utterance and turn), which the wards read
 * after every turn (`state`) and which becomes the cast's result when it ends (`ended`,
 * `failed`). The loop (loop.ts) drives the turns; this only counts them and says how it went.
 */
import { monotonicMs } from "./clock.js";
import { addUsage, emptyUsage, type LLMResponse } from "./contract.js";
import { SpellbookError, SystemError, errorMessage } from "./errors.js";
import type { RecordedCast } from "./loom-writer.js";
import type { MediumStep } from "./medium.js";
import { truncationSummary, type LoopState, type TurnOutcome } from "./outcome.js";
import { totals, type CastResult, type UsageTotals } from "./result.js";
import { addCost } from "./spend.js";

/** What a cast's result says of its entity besides the tally. */
export interface CastOwner<L> {
  readonly entityId: string;
  readonly cumulativeUsage: UsageTotals;
  readonly loom: L;
}

export class CastTally {
  readonly startedAt = monotonicMs();
  turns = 0;
  lastTurnId: string | null = null;
  private readonly usage = emptyUsage();
  /** USD this cast spent; undefined once a turn's price was unknown. */
  private spent: number | undefined = 0;
  private readonly gates = new Map<string, number>();
  private lastUtterance = "";

  /** A continued cast (`cast({ resumeEntity })`): its recorded turns count for the wards. */
  continueFrom(prior: RecordedCast): void {
    this.turns = prior.turns;
    addUsage(this.usage, prior.usage);
    this.spent = prior.costUsd;
    for (const [gate, n] of Object.entries(prior.gates)) this.gates.set(gate, n);
    this.lastUtterance = prior.lastUtterance;
  }

  /** A reply's tokens and price. */
  addReply(response: LLMResponse): void {
    addUsage(this.usage, response.usage);
    this.spent = addCost(this.spent, response.costUsd);
  }

  /** A recorded turn of the medium: its gate calls and its utterance. */
  addStep(turnId: string, step: MediumStep): void {
    this.lastTurnId = turnId;
    this.lastUtterance = step.utterance;
    for (const r of step.gateCalls)
      this.gates.set(r.gate_name, (this.gates.get(r.gate_name) ?? 0) + 1);
  }

  /**
   * What the wards decide on, now (`now`: a reading of monotonicMs the caller took already);
   * `stopped`: why the cast was stopped (CastStop.reason), null while it was not.
   */
  state(stopped: string | null, now: number = monotonicMs()): LoopState {
    return {
      turns: this.turns,
      tokens: this.usage.promptTokens + this.usage.completionTokens,
      startedAt: this.startedAt,
      now,
      aborted: stopped,
      costUsd: this.spent,
    };
  }

  /**
   * The result of a cast the entity or a ward ended. Each result is one object literal, its
   * fields in the order the results always had: spreading a common part into it
   * (`{ ...common, status }`) took V8 5–10 µs a cast, against a fraction of a µs for the
   * literal (measured under bench/loop.bench.mjs's load, issue 40).
   */
  ended<L>(
    owner: CastOwner<L>,
    outcome: Exclude<TurnOutcome, { kind: "continue" }>,
  ): CastResult<L> {
    if (outcome.kind === "terminated") {
      const { result, reason } = outcome;
      return {
        entityId: owner.entityId,
        turns: this.turns,
        usage: totals(this.usage, this.spent),
        cumulativeUsage: owner.cumulativeUsage,
        loom: owner.loom,
        lastTurnId: this.lastTurnId,
        status: "terminated",
        terminated: true,
        truncated: false,
        reason,
        result,
      };
    }
    const { reason } = outcome;
    return {
      entityId: owner.entityId,
      turns: this.turns,
      usage: totals(this.usage, this.spent),
      cumulativeUsage: owner.cumulativeUsage,
      loom: owner.loom,
      lastTurnId: this.lastTurnId,
      status: "truncated",
      terminated: false,
      truncated: true,
      reason,
      result: truncationSummary(reason, this.turns, this.gates, this.lastUtterance),
      lastUtterance: this.lastUtterance,
    };
  }

  /** A failure of the loop, as a `failed` result (never a throw). */
  failed<L>(owner: CastOwner<L>, err: unknown): CastResult<L> {
    const error =
      err instanceof SpellbookError
        ? err
        : new SystemError("cast_failed", errorMessage(err), { cause: err });
    return {
      entityId: owner.entityId,
      turns: this.turns,
      usage: totals(this.usage, this.spent),
      cumulativeUsage: owner.cumulativeUsage,
      loom: owner.loom,
      lastTurnId: this.lastTurnId,
      status: "failed",
      terminated: false,
      truncated: false,
      reason: "failed",
      result: undefined,
      error,
    };
  }
}
