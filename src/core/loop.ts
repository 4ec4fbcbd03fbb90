/**
 * One cast of an entity: the loop of chapter 1 — build view → query → execute → record → decide.
 * It knows its entity only through `LoopHost`; the entity, the circle and the loom are interfaces.
 */
import { monotonicMs } from "./clock.js";
import { addUsage, emptyUsage, type LLMResponse, type QueryOptions } from "./contract.js";
import { SpellbookError, SystemError, errorMessage } from "./errors.js";
import type { EventBus } from "./events.js";
import { newId } from "./ids.js";
import type { MediumStep } from "./medium.js";
import {
  decideOutcome,
  loopLimits,
  truncationSummary,
  wardTruncation,
  type LoopLimits,
  type TurnOutcome,
} from "./outcome.js";
import { totals, type CastResult } from "./result.js";
import type { LoopHost } from "./loop-host.js";
import type { LLMId, RecordedCast, TurnCost } from "./loom-writer.js";
import { addCost, llmIdOf } from "./spend.js";
import { validateResponse } from "./validate-response.js";
import { abortAfter, abortReason, follow } from "./cast-signal.js";
import { emitTurnEvents } from "./turn-events.js";

export type { LoopHost } from "./loop-host.js";

type Truncation = Extract<TurnOutcome, { type: "truncated" }>;

const ms = (since: number): number => Math.round((monotonicMs() - since) * 1000) / 1000;

export class CastRun<L> {
  private readonly controller = new AbortController();
  private readonly usage = emptyUsage();
  private readonly gates = new Map<string, number>();
  private readonly startedAt = monotonicMs();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unlink: (() => void) | undefined;
  private readonly limits: LoopLimits;
  /** What every query of this cast passes; with `onDelta` while someone listens to events. */
  private readonly queryOptions: QueryOptions;
  private readonly streamingQueryOptions: QueryOptions;
  /** Refilled per turn: the loom reads it during the record call (LoomWriter). */
  private readonly cost: TurnCost = { usage: emptyUsage(), durationMs: 0, extra: undefined };
  private turns = 0;
  /** USD this cast spent; undefined once a turn's price was unknown. */
  private spent: number | undefined = 0;
  private readonly llmId: LLMId;
  private lastUtterance = "";
  private lastTurnId: string | null = null;
  /** Gates whose `tool_call` event went out as the call began, this turn (in order). */
  private readonly begun: string[] = [];
  private readonly onGateStart = (gate: string, args: string): void => {
    this.begun.push(gate);
    this.emit({ type: "tool_call", entityId: this.host.id, gate, arguments: args });
  };

  constructor(
    private readonly host: LoopHost<L>,
    outer: AbortSignal | undefined,
    /** A continued cast (`cast({ resumeEntity })`): its recorded turns count for the wards. */
    prior?: RecordedCast,
  ) {
    const { config } = host;
    if (prior) this.continueFrom(prior);
    this.limits = loopLimits(config.circle.wards);
    this.llmId = llmIdOf(config.llm);
    this.queryOptions = {
      tools: config.presentation.tools,
      toolChoice: config.toolChoice,
      extra: config.extra,
      signal: this.controller.signal,
    };
    this.streamingQueryOptions = {
      ...this.queryOptions,
      onDelta: (d) => this.emit({ type: d.type, entityId: host.id, text: d.text }),
    };
    this.timer = abortAfter(this.controller, this.limits.timeoutMs);
    this.unlink = outer ? follow(this.controller, outer) : undefined;
  }

  private continueFrom(prior: RecordedCast): void {
    this.turns = prior.turns;
    addUsage(this.usage, prior.usage);
    this.spent = prior.costUsd;
    for (const [gate, n] of Object.entries(prior.gates)) this.gates.set(gate, n);
    this.lastUtterance = prior.lastUtterance;
  }

  /** Runs to the end; a failure of the loop comes back as a `failed` result, not a throw. */
  async run(): Promise<CastResult<L>> {
    try {
      return await this.loop();
    } catch (err) {
      return this.fail(err);
    }
  }

  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.unlink?.();
    // COMP-9: whatever this cast started (children) stops with it.
    if (!this.controller.signal.aborted) this.controller.abort("parent_terminated");
  }

  private async loop(): Promise<CastResult<L>> {
    const early = wardTruncation(this.limits, this.state());
    if (early?.type === "truncated") return this.finish(early);
    for (;;) {
      const turnId = newId("turn");
      const started = monotonicMs();
      if (this.observed)
        this.emit({ type: "step_start", entityId: this.host.id, sequence: this.turns + 1 });
      const response = await this.query(this.turns + 1);
      if (response === null) return this.finish(this.recordAbort(turnId, started));
      validateResponse(response, this.host.history); // LLM-3, LLM-4, LLM-7
      addUsage(this.usage, response.usage);
      this.host.addUsage(response.usage);
      this.spent = addCost(this.spent, response.costUsd);
      this.begun.length = 0;
      const step = await this.host.step(
        response,
        turnId,
        this.controller.signal,
        this.observed ? this.onGateStart : undefined,
      );
      this.host.history.push(...step.messages);
      this.turns++;
      const outcome = decideOutcome(step.outcome, this.limits, this.state());
      const cost = this.cost;
      cost.usage = response.usage;
      cost.durationMs = ms(started);
      cost.extra = response.metadata;
      cost.costUsd = response.costUsd;
      cost.llm = this.llmId;
      const sequence = this.host.record(turnId, step, cost, outcome);
      await this.host.stored(); // an async store (PostgreSQL) keeps the turn before the next query
      this.afterTurn(turnId, sequence, step, response, outcome, started);
      if (outcome.type !== "continue") return this.finish(outcome);
    }
  }

  private async query(sequence: number): Promise<LLMResponse | null> {
    const { config, id } = this.host;
    const signal = this.controller.signal;
    if (signal.aborted) return null;
    if (this.observed) this.emit({ type: "message_start", entityId: id, sequence });
    try {
      const view = this.host.view();
      // Only a folding view is asynchronous: the default one costs no extra tick.
      const messages = view instanceof Promise ? await view : view;
      const response = await config.llm.query(
        messages,
        this.observed ? this.streamingQueryOptions : this.queryOptions,
      );
      // An LLM that ignored the signal: its late answer does not outrun the ward.
      if (signal.aborted) return null;
      if (this.observed) {
        this.emit({ type: "message_complete", entityId: id, sequence, content: response.content });
        this.emit({ type: "usage", entityId: id, usage: response.usage });
      }
      return response;
    } catch (err) {
      if (signal.aborted) return null; // a ward or the caller stopped the query: a truncation
      throw err;
    }
  }

  /** A query cut off by a ward or a cancel still leaves a terminal turn (LOOM-7). */
  private recordAbort(turnId: string, started: number): Truncation {
    const reason = abortReason(this.controller.signal.reason);
    this.turns++;
    const outcome: Truncation = { type: "truncated", reason };
    this.host.record(
      turnId,
      { utterance: "", observation: `[truncated: ${reason}]`, gateCalls: [] },
      {
        usage: emptyUsage(),
        durationMs: ms(started),
        extra: undefined,
        costUsd: 0,
        llm: this.llmId,
      },
      outcome,
    );
    this.lastTurnId = turnId;
    return outcome;
  }

  private afterTurn(
    turnId: string,
    sequence: number,
    step: MediumStep,
    response: LLMResponse,
    outcome: TurnOutcome,
    started: number,
  ): void {
    this.lastTurnId = turnId;
    this.lastUtterance = step.utterance;
    for (const r of step.gateCalls)
      this.gates.set(r.gate_name, (this.gates.get(r.gate_name) ?? 0) + 1);
    if (!this.observed) return;
    emitTurnEvents(this.host.bus, this.host.id, this.begun, {
      turnId,
      sequence,
      step,
      response,
      outcome,
      durationMs: monotonicMs() - started,
    });
  }

  private common() {
    return {
      entityId: this.host.id,
      turns: this.turns,
      usage: totals(this.usage, this.spent),
      cumulativeUsage: this.host.cumulativeUsage,
      loom: this.host.config.loom,
      lastTurnId: this.lastTurnId,
    };
  }

  private finish(outcome: Exclude<TurnOutcome, { type: "continue" }>): CastResult<L> {
    const entityId = this.host.id;
    if (outcome.type === "terminated") {
      const { result, reason } = outcome;
      this.emit({ type: "final", entityId, result, terminated: true, truncated: false, reason });
      return {
        ...this.common(),
        status: "terminated",
        terminated: true,
        truncated: false,
        reason,
        result,
      };
    }
    const { reason } = outcome;
    const result = truncationSummary(reason, this.turns, this.gates, this.lastUtterance);
    this.emit({ type: "final", entityId, result, terminated: false, truncated: true, reason });
    return {
      ...this.common(),
      status: "truncated",
      terminated: false,
      truncated: true,
      reason,
      result,
      lastUtterance: this.lastUtterance,
    };
  }

  private fail(err: unknown): CastResult<L> {
    const error =
      err instanceof SpellbookError
        ? err
        : new SystemError("cast_failed", errorMessage(err), { cause: err });
    return {
      ...this.common(),
      status: "failed",
      terminated: false,
      truncated: false,
      reason: "failed",
      result: undefined,
      error,
    };
  }

  private state() {
    return {
      turns: this.turns,
      tokens: this.usage.promptTokens + this.usage.completionTokens,
      startedAt: this.startedAt,
      now: monotonicMs(),
      aborted: this.controller.signal.aborted ? abortReason(this.controller.signal.reason) : null,
      costUsd: this.spent,
    };
  }

  /** Events cost nothing when nobody listens: callers skip building them. */
  private get observed(): boolean {
    return this.host.bus.active;
  }

  private emit(event: Parameters<EventBus["emit"]>[0]): void {
    const bus = this.host.bus;
    if (bus.active) bus.emit(event);
  }
}
