import type { CastPlaces } from "./cast-places.js";
import { inspect, type InspectOptionsStylized } from "node:util";
import { addUsage, emptyUsage, type LLMResponse, type Message, type Usage } from "./contract.js";
import { ConfigError } from "./errors.js";
import type { EventBus } from "./events.js";
import { newId } from "./ids.js";
import type { CastConfig, LoopHost } from "./loop-host.js";
import { CastRun } from "./loop.js";
import type { LoomWriter, RecordedCast, TurnContent, TurnCost, TurnHead } from "./loom-writer.js";
import type { GateCallRecord, MediumSession, MediumStep, RebuildTurn } from "./medium.js";
import type { TurnOutcome } from "./outcome.js";
import { totals, type CastResult, type UsageTotals } from "./result.js";
import { wholeHistory, type FoldRecord, type TurnMark } from "./view.js";
import { ThreadReader, type LoomThreadView } from "./entity-thread.js";
import type { EntityOptions, EntitySource } from "./entity-options.js";
import { castSignal, type CastStop } from "./cast-signal.js";
import { streamEvents, type CastEvents } from "./event-stream.js";
import { recordedResult } from "./cast-resume.js";
import { EntityHold } from "./entity-hold.js";
import { prepareCircle, rebuildMedium } from "./entity-prepare.js";
import { inspectRedacted, redactedCopy } from "./printed.js";

/**
 * The running instance of a cantrip (§1.4). Summoned, it persists across `send`s and its
 * state accumulates (ENTITY-5); cast, it runs one intent and is discarded.
 */
export class Entity<L extends LoomWriter = LoomWriter> implements LoopHost<L> {
  readonly id: string;
  readonly history: Message[];
  readonly depth: number;
  private readonly session: MediumSession;
  private readonly usage: Usage = emptyUsage();
  private lastTurnId: string | null;
  private sequence = 0;
  /** Where each turn begins in the history (the view step folds whole turns). */
  private readonly marks: TurnMark[];
  private turnStart: number | null = null;
  private lastUsage: Usage | null = null;
  private intentIndex = 0;
  /** Written into the metadata of the next turn recorded: the intent that began a cast, a fork. */
  private note: Record<string, unknown> | null = null;
  private pendingRebuild: readonly RebuildTurn[] | null;
  private disposed = false;
  private readonly head: TurnHead;
  /** The entity's hold on a loom that keeps entities (entity-hold.ts). */
  private readonly hold: EntityHold | undefined;
  /** The summary of the view's latest fold (LOOM-11 shows it). */
  private foldedSummary: string | null = null;
  private threadReader: ThreadReader | undefined;
  /** The last recorded cast of a resumed entity, once held (what `send({ resume })` continues). */
  private recorded: RecordedCast | undefined;
  /**
   * Where its scripted models stand, when it runs a cast (core/cast-places.ts): its children cast
   * inside it. Undefined for a summoned entity: its sends go on in the models themselves.
   */
  places: CastPlaces | undefined;

  constructor(
    readonly cantrip: EntitySource<L>,
    readonly bus: EventBus,
    private readonly options: EntityOptions = {},
  ) {
    this.id = options.id ?? newId("ent");
    this.lastTurnId = options.parentTurnId ?? null;
    this.sequence = options.sequence ?? 0;
    this.pendingRebuild = options.rebuild?.length ? options.rebuild : null;
    this.depth = options.depth ?? 0;
    this.head = { id: "", parentId: null, cantripId: cantrip.id, entityId: this.id, sequence: 0 };
    this.history = options.history ? [...options.history] : cantrip.initialMessages();
    this.marks = cantrip.view === wholeHistory ? [] : [...(options.marks ?? [])];
    this.session = cantrip.circle.open({ entity: this, depth: this.depth });
    this.hold = options.keeper && new EntityHold(options.keeper, this.id);
  }

  /** PROD-8: printed through its cantrip's redaction (its history holds the system prompt). */
  [inspect.custom](depth: number, options: InspectOptionsStylized): string {
    if (depth < 0) return options.stylize("[Entity]", "special");
    return inspectRedacted("Entity", { ...this }, options, (t) => this.cantrip.printed?.(t) ?? t);
  }

  /** `JSON.stringify(entity)`: its id, cantrip, depth and history, redacted. */
  toJSON(): unknown {
    const value = {
      id: this.id,
      cantrip: this.cantrip.id,
      depth: this.depth,
      history: this.history,
    };
    return redactedCopy(value, (t) => this.cantrip.printed?.(t) ?? t);
  }

  get config(): CastConfig<L> {
    return this.cantrip;
  }

  /**
   * One send read as its events, as `Cantrip.events` reads a cast (core/event-stream.ts);
   * leaving the loop early cancels this send only, and the entity stays.
   */
  events(intent: string, options: { signal?: AbortSignal } = {}): CastEvents<CastResult<L>> {
    return streamEvents((onEvent, closed) => {
      const off = this.bus.on(onEvent);
      const signal = options.signal ? AbortSignal.any([options.signal, closed]) : closed;
      return this.send(intent, { signal }).finally(off);
    });
  }

  /**
   * Runs one intent to its end: terminated by the entity, truncated by a ward, or failed.
   * `signal` stops this cast only (an interactive session's Ctrl-C); the entity stays.
   * `resume`: a resumed entity's last recorded cast continues instead, when it has not ended
   * (its ending comes back when it has); with no recorded turn, `intent` starts a cast.
   */
  async send(
    intent: string,
    options: { signal?: AbortSignal; resume?: boolean } = {},
  ): Promise<CastResult<L>> {
    if (typeof intent !== "string" || intent.trim() === "") {
      throw new ConfigError("intent_required", "intent is required"); // INTENT-1
    }
    if (this.disposed)
      throw new ConfigError("entity_disposed", "entity was released; summon a new one");
    await this.ready();
    if (this.cantrip.circle.prepare) await prepareCircle(this.cantrip, this.history);
    if (this.pendingRebuild) await this.rebuild(this.pendingRebuild);
    // `resume`: the entity's recorded cast goes on from its last turn, its intent already there.
    const going = options.resume ? this.recorded : undefined;
    if (going?.end) return recordedResult({ ...going, end: going.end }, this.ended());
    if (going)
      this.intentIndex = this.history.findLastIndex(
        (m) => m.role === "user" && m.content === going.intent,
      );
    else this.begin(intent);
    const signal = castSignal(this.options.signal, options.signal);
    const cast = new CastRun(this, signal, going);
    const before = this.sequence;
    try {
      const result = await cast.run();
      // A cast that failed before recording any turn leaves no dangling intent behind, so a
      // summoned entity's next send does not follow one user message with another.
      if (
        !going &&
        result.status === "failed" &&
        this.sequence === before &&
        this.history.at(-1)?.role === "user"
      )
        this.history.pop();
      return result;
    } finally {
      cast.release();
      await this.hold?.update(this.lastTurnId);
    }
  }

  /** A new cast: its intent goes into its first turn (a fork rebuilds the context from the loom). */
  private begin(intent: string): void {
    this.intentIndex = this.history.length;
    const fork = this.sequence === 0 ? this.options.fork : undefined;
    this.note = fork
      ? { intent, fork: { from_turn: fork.fromTurnId, strategy: fork.strategy } }
      : { intent };
    this.history.push({ role: "user", content: intent }); // INTENT-2
  }

  private ended() {
    const { id: entityId, lastTurnId, cumulativeUsage } = this;
    return { entityId, loom: this.cantrip.loom, lastTurnId, cumulativeUsage };
  }

  /**
   * Takes the entity's hold on a loom that keeps entities (registered there, and no other
   * summon may continue it meanwhile); `send` does it first. Fails when the entity is held by
   * another summon, or was named but the loom does not know it.
   */
  async ready(): Promise<void> {
    const { resume } = this.options;
    await this.hold?.take(() => {
      if (resume) this.resumeFrom(resume());
    });
  }

  /** A resumed entity continues its recorded thread where it ends now (the entity is held). */
  private resumeFrom(point: EntityOptions): void {
    if (point.history) this.history.splice(0, this.history.length, ...point.history);
    if (point.marks && this.cantrip.view !== wholeHistory)
      this.marks.splice(0, this.marks.length, ...point.marks);
    this.lastTurnId = point.parentTurnId ?? null;
    this.sequence = point.sequence ?? 0;
    this.pendingRebuild = point.rebuild?.length ? point.rebuild : null;
    this.recorded = point.recorded;
  }

  /** LOOM-13: the medium rebuilds its state from the loom (entity-prepare.ts). */
  private async rebuild(turns: readonly RebuildTurn[]): Promise<void> {
    this.pendingRebuild = null;
    const { id: entityId, options } = this;
    const { mediumName } = this.cantrip.circle;
    const of = { mediumName, entityId, fork: Boolean(options.fork), signal: options.signal };
    await rebuildMedium(this.session, turns, of);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.session.dispose();
    this.hold?.release();
  }

  view(): readonly Message[] | Promise<readonly Message[]> {
    const view = this.cantrip.view;
    // The default view is the history itself: nothing to build on the hot path.
    if (view === wholeHistory) return this.history;
    return view(this.history, {
      entityId: this.id,
      turns: this.sequence,
      marks: this.marks,
      intentIndex: this.intentIndex,
      lastUsage: this.lastUsage,
      recordFold: (fold: FoldRecord) => {
        this.foldedSummary = fold.summary;
        this.cantrip.loom.recordFold?.(this.cantrip.id, fold);
      },
    });
  }

  step(
    response: LLMResponse,
    turnId: string,
    stop: CastStop,
    onGateStart?: (gate: string, args: string) => void,
    onGateUnrecorded?: (record: GateCallRecord) => void,
  ): MediumStep | Promise<MediumStep> {
    this.turnStart = this.history.length;
    return this.session.execute(response, {
      entityId: this.id,
      turnId,
      signal: stop.signal,
      stop,
      requireDone: this.cantrip.circle.requireDone,
      onGateStart,
      onGateUnrecorded,
      approver: this.options.onApproval,
    });
  }

  record(turnId: string, content: TurnContent, cost: TurnCost, outcome: TurnOutcome): number {
    const sequence = ++this.sequence;
    // Only a view that folds reads the marks: the default view keeps no per-turn index.
    if (this.cantrip.view !== wholeHistory)
      this.marks.push({ id: turnId, sequence, start: this.turnStart ?? this.history.length });
    this.turnStart = null;
    // One head per entity, refilled per turn: the writer reads it during the call (LoomWriter).
    const head = this.head;
    head.id = turnId;
    head.parentId = this.lastTurnId;
    head.sequence = sequence;
    const { note } = this;
    this.note = null;
    // Issue 25: the turn's approval questions and answers go into its metadata.
    const { approvals } = content as { approvals?: unknown };
    const more = approvals ? { ...note, approvals } : note;
    const noted = more ? { ...cost, extra: { ...cost.extra, ...more } } : cost;
    // LOOM-1: on the store before the next turn begins.
    this.cantrip.loom.recordTurn(head, content, noted, outcome);
    this.lastTurnId = turnId;
    return sequence;
  }

  /** The loom's answer for the turns recorded so far (LoopHost; an async store's). */
  stored(): Promise<void> | undefined {
    return this.cantrip.loom.stored?.(this.id);
  }

  /**
   * LOOM-11: this entity's thread after its first `known` turns, read from the loom now. A
   * fork's inherited turns are its own, and a resumed entity's earlier ones; a child's thread
   * starts below its spawning turn.
   */
  loomThread(known: number): LoomThreadView {
    const whole = this.options.fork !== undefined || this.options.id !== undefined;
    this.threadReader ??= new ThreadReader(whole ? null : (this.options.parentTurnId ?? null));
    return this.threadReader.read(this.cantrip.loom, this.lastTurnId, known, this.foldedSummary);
  }

  addUsage(u: Usage): void {
    addUsage(this.usage, u);
    this.lastUsage = u;
  }

  get cumulativeUsage(): UsageTotals {
    return totals(this.usage);
  }
}
