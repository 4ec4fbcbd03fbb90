/**
 * What the terminal UI of `spell summon` / `spell familiar` shows (issue 42), built from the same
 * events the line mode prints (CantripEvent, already redacted by the caller's redacting
 * listener): the user's intents, each turn as a block (its streamed text, its gate calls with
 * arguments and results, its children's turns nested under it), each cast's result, and the
 * totals of the status line. Plain data and no terminal: App (cli/tui/app.ts) draws it, the tests
 * read it. The loom is written by the entity as in line mode; this only shows.
 */
import type { CantripEvent } from "../../core/events.js";
import type { GateCallRecord } from "../../core/medium.js";
import { unended, wardsNear } from "./ends.js";
import { codeOf } from "./text.js";
import type { ApprovalView, Entry, Recorded, StatusInfo, TurnView } from "./types.js";

export type { ApprovalView, CallView, Entry, Limits, StatusInfo, TurnView } from "./types.js";
export { NEAR_LIMIT } from "./ends.js";

export class SessionModel {
  readonly entries: Entry[] = [];
  running = false;
  /** When the running cast began. */
  castStartedAt = 0;
  /** The last turn sequence of the summoned entity. */
  turn = 0;
  tokensIn = 0;
  tokensOut = 0;
  /** USD of the session's casts; undefined once one cast's cost was unknown. */
  costUsd: number | undefined = 0;
  /** Root turns and tokens of the running cast (its wards). */
  castTurns = 0;
  castTokens = 0;
  approval: ApprovalView | undefined;
  private nextKey = 1;
  private readonly open = new Map<string, TurnView>();
  private readonly parents = new Map<string, TurnView>();
  private readonly listeners = new Set<() => void>();
  private version = 0;
  /** Tokens of the casts already ended (their results' usage, which counts every entity). */
  private endedIn = 0;
  private endedOut = 0;
  /** Tokens of the running cast's turns so far. */
  private liveIn = 0;
  private liveOut = 0;
  private readonly works = new Map<string, { code: string; output: string }>();

  /**
   * @param recorded the turn as the loom recorded it (redacted): a code or bash turn's code and
   *   its output are not in the events; the UI shows them from the loom once the turn ended.
   */
  constructor(
    readonly status: StatusInfo,
    private readonly recorded?: Recorded,
  ) {
    this.turn = status.turn ?? 0;
  }

  /**
   * The code (or bash command) a turn ran and what it printed, when the turn was one of code:
   * it called no gate through the conversation and said something else than its streamed text.
   */
  work(turn: TurnView): { code: string; output: string } | undefined {
    if (!turn.turnId || turn.calls.length > 0 || !this.recorded) return undefined;
    const known = this.works.get(turn.turnId);
    if (known) return known;
    const rec = this.recorded(turn.turnId);
    if (!rec) return undefined;
    const code = rec.utterance.trim();
    const work = code && code !== turn.text.trim() ? { code, output: rec.observation } : undefined;
    if (work) this.works.set(turn.turnId, work);
    return work;
  }

  /** For useSyncExternalStore: a number that changes at every change. */
  readonly snapshot = (): number => this.version;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }

  /** The user sent an intent: a cast starts. */
  intent(text: string, now = Date.now()): void {
    this.entries.push({ kind: "intent", text });
    this.running = true;
    this.castStartedAt = now;
    this.castTurns = 0;
    this.castTokens = 0;
    this.changed();
  }

  notice(text: string, error = false): void {
    this.entries.push({ kind: "notice", text, ...(error ? { error } : {}) });
    this.changed();
  }

  /** The cast ended: its result (unless the streamed text already said it) and summary. */
  castEnded(
    outcome:
      | {
          text: string;
          summary: string;
          usage: { promptTokens: number; completionTokens: number; costUsd?: number | undefined };
        }
      | { error: string },
  ): void {
    this.running = false;
    this.approval = undefined;
    // A turn still open when the send failed was never recorded (the provider failed before it
    // answered): one that showed nothing goes, one that streamed something says it was lost.
    const failed = "error" in outcome;
    for (const turn of this.open.values())
      if (failed && !turn.text && turn.calls.length === 0 && turn.children.length === 0)
        this.drop(turn);
      else turn.end ??= unended(turn, failed);
    this.open.clear();
    if ("error" in outcome) {
      this.entries.push({ kind: "notice", text: outcome.error, error: true });
      this.tokensIn = this.endedIn + this.liveIn;
      this.tokensOut = this.endedOut + this.liveOut;
    } else {
      const said = this.lastRootText().trim();
      this.entries.push({
        kind: "result",
        text: said === outcome.text.trim() ? "" : outcome.text,
        summary: outcome.summary,
      });
      this.endedIn += outcome.usage.promptTokens;
      this.endedOut += outcome.usage.completionTokens;
      this.tokensIn = this.endedIn;
      this.tokensOut = this.endedOut;
      this.costUsd =
        this.costUsd === undefined || outcome.usage.costUsd === undefined
          ? undefined
          : this.costUsd + outcome.usage.costUsd;
    }
    this.liveIn = 0;
    this.liveOut = 0;
    this.changed();
  }

  ask(approval: ApprovalView | undefined): void {
    this.approval = approval;
    this.changed();
  }

  /** One event of the entity's bus (its children's are relayed to it). */
  event(e: CantripEvent, now = Date.now()): void {
    switch (e.type) {
      case "step_start":
        this.startTurn(e.entityId, e.sequence, now);
        break;
      case "text": {
        const turn = this.open.get(e.entityId) ?? this.startTurn(e.entityId, 0, now);
        turn.text += e.text;
        break;
      }
      case "message_complete":
        if (!this.asked(e, now)) return;
        break;
      case "tool_call": {
        const turn = this.open.get(e.entityId) ?? this.startTurn(e.entityId, 0, now);
        // A gate of the conversation whose one argument is code: its call line shows the code.
        const code = codeOf(e.arguments);
        if (code !== undefined && turn.code?.includes(code)) delete turn.code;
        turn.calls.push({ gate: e.gate, args: e.arguments, startedAt: now });
        break;
      }
      case "tool_result":
        this.answered(e.entityId, e.record, now);
        break;
      case "step_complete": {
        const turn = this.open.get(e.entityId) ?? this.startTurn(e.entityId, e.sequence, now);
        this.open.delete(e.entityId);
        turn.sequence = e.sequence; // the entity's turn number, as line mode's "turn N"
        turn.turnId = e.turnId;
        turn.end = {
          durationMs: e.durationMs,
          tokensIn: e.usage.promptTokens,
          tokensOut: e.usage.completionTokens,
          outcome: e.outcome,
          ...(e.isError ? { error: e.error ?? "error" } : {}),
        };
        this.liveIn += e.usage.promptTokens;
        this.liveOut += e.usage.completionTokens;
        this.tokensIn = this.endedIn + this.liveIn;
        this.tokensOut = this.endedOut + this.liveOut;
        if (turn.depth === 0) {
          this.turn = e.sequence;
          this.castTurns++;
        }
        this.castTokens += e.usage.promptTokens + e.usage.completionTokens;
        break;
      }
      default:
        return; // thinking is recorded, not shown; usage comes with step_complete
    }
    this.changed();
  }

  /** A gate call's result, on the call it answers (or on a call of its own, told late). */
  private answered(entityId: string, r: GateCallRecord, now: number): void {
    const turn = this.open.get(entityId) ?? this.startTurn(entityId, 0, now);
    let call = turn.calls.find((c) => c.result === undefined && c.gate === r.gate_name);
    if (!call) {
      call = { gate: r.gate_name, args: r.arguments, startedAt: now };
      turn.calls.push(call);
    }
    call.result = r.result;
    call.isError = r.is_error;
    call.durationMs = r.duration_ms ?? now - call.startedAt;
  }

  /** A reply's code (bash command, code-medium code) kept on its turn: true when it had some. */
  private asked(e: Extract<CantripEvent, { type: "message_complete" }>, now: number): boolean {
    const codes = (e.toolCalls ?? []).flatMap((c) => {
      const code = codeOf(c.arguments);
      return code === undefined ? [] : [code];
    });
    if (!codes.length) return false;
    const turn = this.open.get(e.entityId) ?? this.startTurn(e.entityId, e.sequence, now);
    turn.code = codes.join("\n\n");
    return true;
  }

  /** The wards of the running cast at NEAR_LIMIT of their limit or past it. */
  nearLimits(): string[] {
    return wardsNear(this.status.limits, this.castTurns, this.castTokens, this.costUsd);
  }

  /** Every turn block, parents before their children (the order of Tab's selection). */
  turns(): TurnView[] {
    const all: TurnView[] = [];
    const walk = (t: TurnView) => {
      all.push(t);
      t.children.forEach(walk);
    };
    for (const entry of this.entries) if (entry.kind === "turn") walk(entry.turn);
    return all;
  }

  private startTurn(entityId: string, sequence: number, now: number): TurnView {
    const parent = this.parentOf(entityId);
    const turn: TurnView = {
      key: this.nextKey++,
      entityId,
      // step_start counts the cast's turns; the entity's number (line mode's) is known for the
      // summoned entity, and comes with step_complete for a child's.
      sequence: parent ? sequence : this.turn + 1,
      depth: parent ? parent.depth + 1 : 0,
      startedAt: now,
      text: "",
      calls: [],
      children: [],
    };
    this.open.set(entityId, turn);
    if (parent) parent.children.push(turn);
    else this.entries.push({ kind: "turn", turn });
    return turn;
  }

  /**
   * The turn a child's turn goes under: the open turn of another entity that was running when
   * the child first spoke (its call_entity call), kept for the child's later turns.
   */
  private parentOf(entityId: string): TurnView | undefined {
    if (entityId === this.status.entityId) return undefined;
    const known = this.parents.get(entityId);
    if (known) return known;
    const candidates = [...this.open.values()].filter((t) => t.entityId !== entityId);
    const parent = candidates[candidates.length - 1];
    if (parent) this.parents.set(entityId, parent);
    return parent;
  }

  private drop(turn: TurnView): void {
    const parent = this.parents.get(turn.entityId);
    if (parent) parent.children.splice(parent.children.indexOf(turn), 1);
    else {
      const at = this.entries.findIndex((e) => e.kind === "turn" && e.turn === turn);
      if (at >= 0) this.entries.splice(at, 1);
    }
  }

  private lastRootText(): string {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.kind === "intent") return "";
      if (e.kind === "turn" && e.turn.text) return e.turn.text;
    }
    return "";
  }
}
