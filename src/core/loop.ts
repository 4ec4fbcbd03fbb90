/**
 * One cast of an entity: the loop of chapter 1 — build view → query → execute → record → decide.
 * It knows its entity only through `LoopHost`; the entity, the circle and the loom are interfaces.
 */
import { monotonicMs } from "./clock.js";
import { emptyUsage, type LLMResponse, type QueryOptions } from "./contract.js";
import type { EventBus } from "./events.js";
import { newId } from "./ids.js";
import type { GateCallRecord, MediumStep } from "./medium.js";
import {
  decideOutcome,
  loopLimits,
  wardTruncation,
  type LoopLimits,
  type TurnOutcome,
} from "./outcome.js";
import type { CastResult } from "./result.js";
import type { LoopHost } from "./loop-host.js";
import type { LLMId, RecordedCast, TurnCost } from "./loom-writer.js";
import { llmIdOf } from "./spend.js";
import { CastTally } from "./cast-tally.js";
import { validateResponse } from "./validate-response.js";
import { abortAfter, CastStop, follow, QueryRace } from "./cast-signal.js";
import { emitTurnEvents, metadataText, providerFinishReason } from "./turn-events.js";

export type { LoopHost } from "./loop-host.js";

type Truncation = Extract<TurnOutcome, { kind: "truncated" }>;

/** A duration in milliseconds, to the µs. */
const roundMs = (duration: number): number => Math.round(duration * 1000) / 1000;
const ms = (since: number): number => roundMs(monotonicMs() - since);

export class CastRun<L> {
  /** The cast's AbortController, and whether it stopped as a plain field (cast-signal.ts). */
  private readonly stop = new CastStop();
  /** Turns, tokens, spend, gates called: what the wards read and the result reports. */
  private readonly tally = new CastTally();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unlink: (() => void) | undefined;
  private readonly limits: LoopLimits;
  /** What every query of this cast passes; with `onDelta` while someone listens to events. */
  private readonly queryOptions: QueryOptions;
  /** Queries of an LLM that may ignore the signal, each cut off when the cast is stopped. */
  private race: QueryRace | undefined;
  /** Built at the first query someone listens to: a cast nobody observes never needs it. */
  private streamingQueryOptions: QueryOptions | undefined;
  /**
   * Refilled per turn, read by the loom as it records. All its keys at once, `durationMs` a double:
   * keys added at the first turn gave it a hidden class a full GC freed (core/kept-shapes.ts).
   */
  private readonly cost: TurnCost = {
    usage: emptyUsage(),
    durationMs: Number.NaN,
    extra: undefined,
    costUsd: undefined,
    llm: undefined,
  };
  private readonly llmId: LLMId;
  /** Gates whose `tool_call` event went out as the call began, this turn (in order). */
  private readonly begun: string[] = [];
  /** Calls of this turn answered without a record (past its gate budget), in order. */
  private readonly unrecorded: GateCallRecord[] = [];
  private readonly onGateUnrecorded = (record: GateCallRecord): void => {
    this.unrecorded.push(record);
  };
  /** The reply's tool calls not yet begun (observed casts): a gate's `tool_call` gets its id. */
  private readonly asked: { name: string; id: string }[] = [];
  private readonly onGateStart = (gate: string, args: string): void => {
    this.begun.push(gate);
    const at = this.asked.findIndex((c) => c.name === gate);
    const callId = at < 0 ? undefined : this.asked.splice(at, 1)[0]!.id;
    const event = { type: "tool_call", entityId: this.host.id, gate, arguments: args } as const;
    this.emit(callId === undefined ? event : { ...event, callId });
  };

  constructor(
    private readonly host: LoopHost<L>,
    outer: AbortSignal | undefined,
    /** A continued cast (`cast({ resumeEntity })`): its recorded turns count for the wards. */
    prior?: RecordedCast,
  ) {
    const { config } = host;
    if (prior) this.tally.continueFrom(prior);
    this.limits = loopLimits(config.circle.wards);
    this.llmId = llmIdOf(config.llm);
    this.queryOptions = {
      tools: config.presentation.tools,
      toolChoice: config.toolChoice,
      extra: config.extra,
      signal: this.stop.signal,
    };
    this.timer = abortAfter(this.stop, this.limits.timeoutMs);
    this.unlink = outer ? follow(this.stop, outer) : undefined;
  }

  /** Runs to the end; a failure of the loop comes back as a `failed` result, not a throw. */
  async run(): Promise<CastResult<L>> {
    try {
      return await this.loop();
    } catch (err) {
      return this.tally.failed(this.owner(), err);
    }
  }

  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.unlink?.();
    // COMP-9: whatever this cast started (children) stops with it.
    this.stop.stop("parent_terminated");
  }

  private async loop(): Promise<CastResult<L>> {
    const { tally } = this;
    const early = wardTruncation(this.limits, this.state());
    if (early?.kind === "truncated") return this.finish(early);
    for (;;) {
      const turnId = newId("turn");
      const started = monotonicMs();
      if (this.observed)
        this.emit({ type: "step_start", entityId: this.host.id, sequence: tally.turns + 1 });
      // The query's own steps run here, not in an async function of their own: the reply
      // reaches the loop one tick after the LLM gives it (bench/loop.bench.mjs).
      let response: LLMResponse | null = null;
      try {
        const asked = this.ask(tally.turns + 1);
        if (asked) response = this.received(await asked, tally.turns + 1);
      } catch (err) {
        // A ward or the caller stopped the query: a truncation.
        if (this.stop.reason === null) throw err;
      }
      if (response === null) return this.finish(this.recordAbort(turnId, started));
      validateResponse(response, this.host.history); // LLM-3, LLM-4, LLM-7
      tally.addReply(response);
      this.host.addUsage(response.usage);
      this.begun.length = 0;
      this.unrecorded.length = 0;
      const stepping = this.host.step(
        response,
        turnId,
        this.stop,
        this.observed ? this.onGateStart : undefined,
        this.observed ? this.onGateUnrecorded : undefined,
      );
      // A turn answered synchronously (a conversation's echo or done) costs no extra tick.
      const step = stepping instanceof Promise ? await stepping : stepping;
      this.host.history.push(...step.messages);
      tally.turns++;
      // One reading of the clock serves the wards and the turn's duration.
      const now = monotonicMs();
      const outcome = decideOutcome(step.outcome, this.limits, this.state(now));
      const cost = this.cost;
      cost.usage = response.usage;
      cost.durationMs = roundMs(now - started);
      cost.extra = response.metadata;
      cost.costUsd = response.costUsd;
      cost.llm = this.llmId;
      const sequence = this.host.record(turnId, step, cost, outcome);
      // An async store (PostgreSQL) keeps the turn before the next query; a file store has
      // written it already, and skipping the await saves a tick per turn.
      const stored = this.host.stored();
      if (stored) await stored;
      this.afterTurn(turnId, sequence, step, response, outcome, started);
      if (outcome.kind !== "continue") return this.finish(outcome);
    }
  }

  /** Sends the view to the LLM; null when the cast was stopped before the query. */
  private ask(sequence: number): Promise<LLMResponse> | null {
    const { config, id } = this.host;
    if (this.stop.reason !== null) return null;
    if (this.observed)
      this.emit({
        type: "message_start",
        entityId: id,
        sequence,
        llm: this.llmId,
        ...(config.llm.server ? { server: config.llm.server } : {}),
      });
    const view = this.host.view();
    // Only a folding view is asynchronous: the default one costs no extra tick.
    const query =
      view instanceof Promise
        ? view.then((messages) => config.llm.query(messages, this.queryOptionsNow()))
        : config.llm.query(view, this.queryOptionsNow());
    // An LLM that may ignore the signal must not hold the cast past a ward or a cancel.
    if (config.llm.honoursSignal) return query;
    return (this.race ??= new QueryRace(this.stop)).run(query);
  }

  /** With `onDelta` while someone listens to events. */
  private queryOptionsNow(): QueryOptions {
    if (!this.observed) return this.queryOptions;
    return (this.streamingQueryOptions ??= {
      ...this.queryOptions,
      onDelta: (d) => this.emit({ type: d.type, entityId: this.host.id, text: d.text }),
    });
  }

  /** The LLM's reply as the loop takes it; null when a ward or the caller stopped the query. */
  private received(response: LLMResponse, sequence: number): LLMResponse | null {
    // An answer that came as the cast was stopped does not outrun the ward.
    if (this.stop.reason !== null) return null;
    if (this.observed) {
      const id = this.host.id;
      const finishReason = providerFinishReason(response);
      const responseId = metadataText(response, "id");
      const responseModel = metadataText(response, "model");
      this.asked.splice(0, this.asked.length);
      for (const c of response.toolCalls ?? []) this.asked.push({ name: c.name, id: c.id });
      this.emit({
        type: "message_complete",
        entityId: id,
        sequence,
        content: response.content,
        ...(finishReason === undefined ? {} : { finishReason }),
        ...(responseId === undefined ? {} : { responseId }),
        ...(responseModel === undefined ? {} : { responseModel }),
        ...(response.toolCalls?.length
          ? { toolCalls: response.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) }
          : {}),
      });
      this.emit({ type: "usage", entityId: id, usage: response.usage });
    }
    return response;
  }

  /** A query cut off by a ward or a cancel still leaves a terminal turn (LOOM-7). */
  private recordAbort(turnId: string, started: number): Truncation {
    const reason = this.stop.reason ?? "aborted";
    this.tally.turns++;
    const outcome: Truncation = { kind: "truncated", reason };
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
    this.tally.lastTurnId = turnId;
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
    this.tally.addStep(turnId, step);
    if (!this.observed) return;
    emitTurnEvents(this.host.bus, this.host.id, this.begun, this.unrecorded, {
      turnId,
      sequence,
      step,
      response,
      outcome,
      durationMs: monotonicMs() - started,
    });
  }

  /** The entity a result speaks of, as it is when the cast ends. */
  private owner() {
    const { host } = this;
    return { entityId: host.id, cumulativeUsage: host.cumulativeUsage, loom: host.config.loom };
  }

  private finish(outcome: Exclude<TurnOutcome, { kind: "continue" }>): CastResult<L> {
    const r = this.tally.ended(this.owner(), outcome);
    const { result, terminated, truncated, reason } = r;
    this.emit({ type: "final", entityId: this.host.id, result, terminated, truncated, reason });
    return r;
  }

  private state(now?: number) {
    return this.tally.state(this.stop.reason, now);
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
