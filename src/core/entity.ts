import type { MediumSession, MediumStep } from "../circle/medium.js";
import {
  addUsage,
  emptyUsage,
  type LLMResponse,
  type Message,
  type QueryOptions,
  type Usage,
} from "../llm/contract.js";
import { validateResponse } from "../llm/validate.js";
import type { Loom } from "../loom/loom.js";
import type { Turn, TurnMetadata } from "../loom/turn.js";
import type { Cantrip } from "./cantrip.js";
import { isoNow } from "./clock.js";
import { ConfigError } from "./errors.js";
import type { EventBus } from "./events.js";
import { newId } from "./ids.js";
import {
  decideOutcome,
  loopLimits,
  truncationSummary,
  wardTruncation,
  type LoopLimits,
  type TurnOutcome,
} from "./outcome.js";

export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  total_tokens: number;
}

/** What a cast returns: the answer, how the loop ended and why, and where the record is. */
export interface CastResult {
  result: unknown;
  terminated: boolean;
  truncated: boolean;
  /** "done", "text", or the ward/cause of the truncation ("max_turns", "parent_terminated", ...). */
  reason: string;
  entityId: string;
  /** Turns of this cast. */
  turns: number;
  /** Usage of this cast, and of the entity across all its casts (PROD-3). */
  usage: UsageTotals;
  cumulativeUsage: UsageTotals;
  loom: Loom;
  /** The last turn of this cast: its thread is `loom.thread(lastTurnId)`. */
  lastTurnId: string | null;
}

/** What a turn's step supplies to its record: the medium's side of the turn. */
type TurnContent = Pick<MediumStep, "utterance" | "observation" | "gateCalls">;

export interface EntityOptions {
  /** The turn this entity hangs from: a spawning parent turn (COMP-5) or a fork point (LOOM-4). */
  parentTurnId?: string | null;
  /** Cancels the entity (Ctrl-C, a terminated parent). The reason becomes the truncation reason. */
  signal?: AbortSignal;
  /** Working context to start from instead of a fresh one (a fork). */
  history?: Message[];
  services?: Record<string, unknown>;
}

/**
 * The running instance of a cantrip (§1.4). Summoned, it persists across `send`s and its
 * state accumulates (ENTITY-5); cast, it runs one intent and is discarded.
 */
export class Entity {
  readonly id = newId("ent");
  readonly messages: Message[];
  private readonly session: MediumSession;
  private readonly usage: Usage = emptyUsage();
  private lastTurnId: string | null;
  private sequence = 0;
  private disposed = false;

  constructor(
    readonly cantrip: Cantrip,
    private readonly events: EventBus,
    private readonly options: EntityOptions = {},
  ) {
    this.lastTurnId = options.parentTurnId ?? null;
    this.messages = options.history ? [...options.history] : cantrip.initialMessages();
    this.session = cantrip.circle.medium.open(cantrip.circle, {
      ...options.services,
      entity: this,
    });
  }

  /** Runs one intent to its end: terminated by the entity or truncated by a ward. */
  async send(intent: string): Promise<CastResult> {
    if (typeof intent !== "string" || intent.trim() === "") {
      throw new ConfigError("intent_required", "intent is required"); // INTENT-1
    }
    if (this.disposed)
      throw new ConfigError("entity_disposed", "entity was released; summon a new one");
    this.messages.push({ role: "user", content: intent }); // INTENT-2
    const cast = new CastRun(this, this.options.signal);
    const before = this.sequence;
    try {
      return await cast.run();
    } catch (err) {
      // A cast that failed before recording any turn leaves no dangling intent behind, so a
      // summoned entity's next send does not follow one user message with another.
      if (this.sequence === before && this.messages.at(-1)?.role === "user") this.messages.pop();
      throw err;
    } finally {
      cast.release();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.session.dispose();
  }

  /** @internal — one turn's steps, for CastRun. */
  step(response: LLMResponse, turnId: string, signal: AbortSignal): Promise<MediumStep> {
    return this.session.execute(response, {
      entityId: this.id,
      turnId,
      signal,
      requireDone: this.cantrip.circle.requireDone,
    });
  }

  /** @internal — records a turn; one object literal in one shape keeps the hot path cheap. */
  record(id: string, step: TurnContent, metadata: TurnMetadata, outcome: TurnOutcome): Turn {
    const turn: Turn = {
      id,
      parent_id: this.lastTurnId,
      cantrip_id: this.cantrip.id,
      entity_id: this.id,
      role: "turn",
      sequence: ++this.sequence,
      utterance: step.utterance,
      observation: step.observation,
      gate_calls: step.gateCalls,
      metadata,
      reward: null,
      terminated: outcome.type === "terminated",
      truncated: outcome.type === "truncated",
      reason: outcome.type === "continue" ? null : outcome.reason,
    };
    // LOOM-1: on the store before the next turn begins.
    this.cantrip.loom.appendGenerated(turn);
    this.lastTurnId = id;
    return turn;
  }

  /** @internal */
  addUsage(u: Usage): void {
    addUsage(this.usage, u);
  }

  get cumulativeUsage(): UsageTotals {
    return totals(this.usage);
  }

  get bus(): EventBus {
    return this.events;
  }
}

/** One cast of an entity: the loop of chapter 1 — build view → query → execute → record → decide. */
class CastRun {
  private readonly controller = new AbortController();
  private readonly usage = emptyUsage();
  private readonly gates = new Map<string, number>();
  private readonly startedAt = performance.now();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unlink: (() => void) | undefined;
  private readonly limits: LoopLimits;
  /** What every query of this cast passes; with `onDelta` while someone listens to events. */
  private readonly queryOptions: QueryOptions;
  private readonly streamingQueryOptions: QueryOptions;
  private turns = 0;
  private lastUtterance = "";
  private lastTurnId: string | null = null;

  constructor(
    private readonly entity: Entity,
    outer: AbortSignal | undefined,
  ) {
    const { cantrip, id } = entity;
    this.limits = loopLimits(cantrip.circle.wards);
    this.queryOptions = {
      tools: cantrip.presentation.tools,
      toolChoice: cantrip.toolChoice,
      extra: cantrip.extra,
      signal: this.controller.signal,
    };
    this.streamingQueryOptions = {
      ...this.queryOptions,
      onDelta: (d) => this.emit({ type: d.type, entityId: id, text: d.text }),
    };
    const timeout = this.limits.timeoutMs;
    if (timeout !== undefined) {
      // setTimeout takes at most 2^31-1 ms (~24.8 days); a larger delay would fire at once.
      this.timer = setTimeout(
        () => this.controller.abort("timeout_ms"),
        Math.min(timeout, 2 ** 31 - 1),
      );
      this.timer.unref();
    }
    if (outer) {
      const forward = (): void => this.controller.abort(reasonOf(outer.reason));
      if (outer.aborted) forward();
      outer.addEventListener("abort", forward, { once: true });
      this.unlink = () => outer.removeEventListener("abort", forward);
    }
  }

  async run(): Promise<CastResult> {
    const early = wardTruncation(this.limits, this.state());
    if (early?.type === "truncated") return this.finish(early);
    for (;;) {
      const turnId = newId("turn");
      const sequence = this.turns + 1;
      const started = performance.now();
      if (this.observed) this.emit({ type: "step_start", entityId: this.entity.id, sequence });
      const response = await this.query(sequence);
      if (response === null) return this.finish(this.recordAbort(turnId, started));
      validateResponse(response, this.entity.messages); // LLM-3, LLM-4, LLM-7
      addUsage(this.usage, response.usage);
      this.entity.addUsage(response.usage);
      const step = await this.entity.step(response, turnId, this.controller.signal);
      this.entity.messages.push(...step.messages);
      this.turns++;
      const outcome = decideOutcome(step.outcome, this.limits, this.state());
      const metadata: TurnMetadata = {
        tokens_prompt: response.usage.promptTokens,
        tokens_completion: response.usage.completionTokens,
        tokens_cached: response.usage.cachedTokens,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        timestamp: isoNow(),
      };
      if (response.metadata) Object.assign(metadata, response.metadata);
      const turn = this.entity.record(turnId, step, metadata, outcome);
      this.afterTurn(turn, step, response, outcome, started);
      if (outcome.type !== "continue") return this.finish(outcome);
    }
  }

  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.unlink?.();
    // COMP-9: whatever this cast started (children) stops with it.
    if (!this.controller.signal.aborted) this.controller.abort("parent_terminated");
  }

  private async query(sequence: number): Promise<LLMResponse | null> {
    const { cantrip, id } = this.entity;
    const signal = this.controller.signal;
    if (signal.aborted) return null;
    if (this.observed) this.emit({ type: "message_start", entityId: id, sequence });
    try {
      const response = await cantrip.llm.query(
        this.entity.messages,
        this.observed ? this.streamingQueryOptions : this.queryOptions,
      );
      // An LLM that ignored the signal: its late answer does not outrun the ward.
      if (signal.aborted) return null;
      if (this.observed)
        this.emit({ type: "message_complete", entityId: id, sequence, content: response.content });
      if (this.observed) this.emit({ type: "usage", entityId: id, usage: response.usage });
      return response;
    } catch (err) {
      if (signal.aborted) return null; // a ward or the caller stopped the query: a truncation
      throw err;
    }
  }

  /** A query cut off by a ward or a cancel still leaves a terminal turn (LOOM-7). */
  private recordAbort(turnId: string, started: number): TurnOutcome {
    const reason = reasonOf(this.controller.signal.reason);
    this.turns++;
    const outcome: TurnOutcome = { type: "truncated", reason };
    this.entity.record(
      turnId,
      { utterance: "", observation: `[truncated: ${reason}]`, gateCalls: [] },
      {
        tokens_prompt: 0,
        tokens_completion: 0,
        tokens_cached: 0,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        timestamp: isoNow(),
      },
      outcome,
    );
    this.lastTurnId = turnId;
    return outcome;
  }

  private afterTurn(
    turn: Turn,
    step: MediumStep,
    response: LLMResponse,
    outcome: TurnOutcome,
    started: number,
  ): void {
    this.lastTurnId = turn.id;
    this.lastUtterance = step.utterance;
    for (const r of step.gateCalls)
      this.gates.set(r.gate_name, (this.gates.get(r.gate_name) ?? 0) + 1);
    const id = this.entity.id;
    if (this.entity.bus.active) {
      for (const record of step.gateCalls) {
        this.emit({
          type: "tool_call",
          entityId: id,
          gate: record.gate_name,
          arguments: record.arguments,
        });
        this.emit({ type: "tool_result", entityId: id, record });
      }
    }
    if (this.observed)
      this.emit({
        type: "step_complete",
        entityId: id,
        sequence: turn.sequence,
        turnId: turn.id,
        gates: step.gateCalls.map((r) => r.gate_name),
        usage: response.usage,
        durationMs: performance.now() - started,
        outcome: outcome.type === "continue" ? "continue" : outcome.type,
      });
  }

  private finish(outcome: TurnOutcome): CastResult {
    const terminated = outcome.type === "terminated";
    const reason = outcome.type === "continue" ? "continue" : outcome.reason;
    const result = terminated
      ? (outcome as { result: unknown }).result
      : truncationSummary(reason, this.turns, this.gates, this.lastUtterance);
    this.emit({
      type: "final",
      entityId: this.entity.id,
      result,
      terminated,
      truncated: !terminated,
      reason,
    });
    return {
      result,
      terminated,
      truncated: !terminated,
      reason,
      entityId: this.entity.id,
      turns: this.turns,
      usage: totals(this.usage),
      cumulativeUsage: this.entity.cumulativeUsage,
      loom: this.entity.cantrip.loom,
      lastTurnId: this.lastTurnId,
    };
  }

  private state() {
    return {
      turns: this.turns,
      tokens: this.usage.promptTokens + this.usage.completionTokens,
      startedAt: this.startedAt,
      now: performance.now(),
      aborted: this.controller.signal.aborted ? reasonOf(this.controller.signal.reason) : null,
    };
  }

  /** Events cost nothing when nobody listens: callers skip building them. */
  private get observed(): boolean {
    return this.entity.bus.active;
  }

  private emit(event: Parameters<EventBus["emit"]>[0]): void {
    const bus = this.entity.bus;
    if (bus.active) bus.emit(event);
  }
}

function reasonOf(reason: unknown): string {
  if (typeof reason === "string") return reason;
  if (reason instanceof Error && reason.name === "AbortError") return "aborted";
  return "aborted";
}

function totals(u: Usage): UsageTotals {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    cached_tokens: u.cachedTokens,
    total_tokens: u.promptTokens + u.completionTokens,
  };
}
