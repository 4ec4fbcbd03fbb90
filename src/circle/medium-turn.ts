/**
 * One medium turn protocol, shared by every medium: the rules of a turn are written once here —
 * the assistant message built once (with what the provider needs back), LOOP-6 (a text-only
 * reply ends the loop unless only `done` may), LOOP-3 (nothing runs after `done`), skipping
 * what is left after an abort (LOOP-4), PROD-5 (an ephemeral result leaves the working
 * context after the next turn), and the turn's budget of recorded gate bytes (gate-budget.ts). A medium supplies only how one call runs and how a turn reads.
 */
import type { LLMResponse, Message, ToolCall } from "../core/contract.js";
import { abortReason } from "../core/cast-signal.js";
import type { Entity } from "../core/entity.js";
import type { EntityContext, GateHost, MediumStep, TurnScope } from "./medium.js";
import { numberWard } from "../core/wards.js";
import { keepShape } from "../core/kept-shapes.js";
import type { GateCallRecord, GateContext } from "./gate.js";
import type { ApprovalRecord } from "../core/approval.js";
import { DEFAULT_MAX_GATE_RECORD_KB, GateBudget } from "./gate-budget.js";

/** Shown after a text-only reply when only `done` may end the loop (LOOP-6). */
export const DONE_REMINDER =
  "No gate was called. Continue with the task; call the done gate with your answer when finished.";

/** What stays in the working context of an ephemeral gate's result after the next turn (PROD-5). */
export const ephemeralNote = (chars: number): string =>
  `[ephemeral result removed from context (${chars} chars); the loom keeps it — call the gate again if needed]`;

const SKIPPED = "skipped: done was called earlier in this utterance (LOOP-3)";

/** A turn as a medium's calls see it: the loop's scope and the turn's budget of recorded bytes. */
export interface CallScope extends TurnScope {
  readonly budget: GateBudget;
  /** The turn's approval records (issue 25). */
  readonly approvals: ApprovalRecord[];
}

/** A turn's calls as they run: what the turn's step is made of. */
interface TurnRun {
  readonly scope: TurnScope;
  readonly callScope: CallScope;
  readonly messages: Message[];
  readonly runs: CallRun[];
  readonly gateCalls: GateCallRecord[];
  readonly approvals: ApprovalRecord[];
  /** Set when `done` completed (LOOP-3): the calls after it are skipped. */
  done: { result: unknown } | undefined;
}

/** What a gate called during this turn is told: the turn, who calls it, and the turn's budget. */
export function gateContext(scope: CallScope, context: EntityContext<Entity>): GateContext {
  return {
    entityId: scope.entityId,
    turnId: scope.turnId,
    signal: scope.signal,
    entity: context.entity,
    depth: context.depth,
    onStart: scope.onGateStart,
    onUnrecorded: scope.onGateUnrecorded,
    budget: scope.budget,
    approver: scope.approver,
    approvals: scope.approvals,
  };
}

/** One tool call of an utterance, run by the medium. */
export interface CallRun {
  /** Every gate the call reached, in order (CIRCLE-7). */
  records: GateCallRecord[];
  /** The tool message's content: what the entity observes of this call. */
  text: string;
  isError: boolean;
  /**
   * When `isError`: the error said shortly (code that threw: its name and message; a command
   * that failed: how it ended). Absent: the text stands for it (a gate's error message).
   */
  error?: string | undefined;
  /** The source the call ran, when the call carries code (the turn's utterance is made of it). */
  code?: string | undefined;
  /** Set when `done` completed in this call (LOOP-3); a failed done leaves it unset (LOOP-7). */
  done?: { result: unknown } | undefined;
}

/** What a medium supplies to the protocol. */
export interface TurnRules {
  runCall(call: ToolCall, scope: CallScope): CallRun | Promise<CallRun>;
  /** The turn's utterance for the loom. */
  utterance(response: LLMResponse, runs: readonly CallRun[]): string;
  /** The turn's observation for the loom: one composite per turn (CIRCLE-7). */
  observation(runs: readonly CallRun[]): string;
  /** The content a call's message keeps once its ephemeral results leave the context (PROD-5). */
  trimmed(run: CallRun, content: string): string;
}

/**
 * The code mediums' utterance (bash, code): the code of the calls that ran some, a blank line
 * between; without any, the response's text.
 */
export function codeUtterance(response: LLMResponse, runs: readonly CallRun[]): string {
  const code = runs.flatMap((r) => (r.code === undefined ? [] : [r.code]));
  return code.length ? code.join("\n\n") : (response.content ?? "");
}

/** The code mediums' observation: each call's text, a blank line between. */
export const joinedObservation = (runs: readonly CallRun[]): string =>
  runs.map((r) => r.text).join("\n\n");

/** A session's turn protocol: one per entity, since PROD-5 trims across turns. */
export class MediumTurn {
  /** Tool messages holding ephemeral results of the previous turn, trimmed after this one. */
  private ephemeral: { message: { content: string }; run: CallRun }[] = [];

  constructor(
    private readonly circle: GateHost,
    private readonly rules: TurnRules,
  ) {}

  /**
   * Runs the turn's calls in order. A turn whose calls all answer synchronously (a conversation
   * turn's echo or done) is answered synchronously: no promise, no extra tick for the loop.
   */
  execute(response: LLMResponse, scope: TurnScope): MediumStep | Promise<MediumStep> {
    if (this.ephemeral.length) this.trimEphemeral();
    const calls = response.toolCalls ?? [];
    const assistant = assistantMessage(response, calls);
    if (calls.length === 0) return textOnly(assistant, response.content ?? "", scope.requireDone);
    // One budget for every call of the turn (issue 20), whichever medium runs them.
    const kb = numberWard(this.circle.wards, "max_gate_record_kb") ?? DEFAULT_MAX_GATE_RECORD_KB;
    const approvals: ApprovalRecord[] = [];
    const turn: TurnRun = {
      scope,
      callScope: callScopeOf(scope, new GateBudget(kb * 1024), approvals),
      messages: [assistant],
      runs: [],
      gateCalls: [],
      approvals,
      done: undefined,
    };
    for (let i = 0; i < calls.length; i++) {
      const ran = this.start(turn, calls[i]!);
      if (ran instanceof Promise) return this.finishLater(turn, response, calls, i, ran);
      if (ran) this.took(turn, calls[i]!, ran);
    }
    return this.stepOf(turn, response);
  }

  /** The rest of a turn once one of its calls answers asynchronously, from call `i` on. */
  private async finishLater(
    turn: TurnRun,
    response: LLMResponse,
    calls: readonly ToolCall[],
    i: number,
    pending: Promise<CallRun>,
  ): Promise<MediumStep> {
    this.took(turn, calls[i]!, await pending);
    for (let j = i + 1; j < calls.length; j++) {
      const ran = this.start(turn, calls[j]!);
      const run = ran instanceof Promise ? await ran : ran;
      if (run) this.took(turn, calls[j]!, run);
    }
    return this.stepOf(turn, response);
  }

  /** One call begins: its run, or undefined when it is skipped (answered here). */
  private start(turn: TurnRun, call: ToolCall): CallRun | Promise<CallRun> | undefined {
    const stopped = turn.done ? null : stoppedBy(turn.scope);
    if (turn.done || stopped !== null) {
      // Every call still gets a result so the history stays well paired (LLM-7).
      const content = turn.done ? SKIPPED : `skipped: the loop was stopped (${stopped})`;
      turn.messages.push({ role: "tool", toolCallId: call.id, content });
      return undefined;
    }
    return this.rules.runCall(call, turn.callScope);
  }

  /** A call's run, taken into the turn. */
  private took(turn: TurnRun, call: ToolCall, run: CallRun): void {
    turn.runs.push(run);
    for (const r of run.records) turn.gateCalls.push(r);
    const message: Message = run.isError
      ? { role: "tool", toolCallId: call.id, content: run.text, isError: true }
      : { role: "tool", toolCallId: call.id, content: run.text };
    turn.messages.push(message);
    if (this.holdsEphemeral(run)) this.ephemeral.push({ message, run });
    turn.done = run.done;
  }

  private stepOf(turn: TurnRun, response: LLMResponse): MediumStep {
    const { runs, done } = turn;
    let failed: CallRun | undefined;
    for (const r of runs) if (r.isError && !failed) failed = r;
    const isError = failed !== undefined;
    const step: MediumStep = {
      utterance: this.rules.utterance(response, runs),
      observation: this.rules.observation(runs),
      gateCalls: turn.gateCalls,
      messages: turn.messages,
      outcome: done ? { kind: "done", result: done.result } : { kind: "continue" },
      isError,
    };
    if (failed) step.error = failed.error ?? failed.text;
    if (turn.approvals.length) step.approvals = turn.approvals;
    return step;
  }

  dispose(): void {
    this.ephemeral = [];
  }

  private holdsEphemeral(run: CallRun): boolean {
    const { gates } = this.circle;
    for (const r of run.records) if (!r.is_error && gates.get(r.gate_name)?.ephemeral) return true;
    return false;
  }

  /** PROD-5: the loom keeps everything; only the working context forgets. */
  private trimEphemeral(): void {
    for (const { message, run } of this.ephemeral)
      message.content = this.rules.trimmed(run, message.content);
    this.ephemeral = [];
  }
}

// A session's turn is made per entity: its map outlives the casts through this one, which holds
// nothing (core/kept-shapes.ts).
keepShape(new MediumTurn(null as never, null as never));

/** Why the cast was stopped, null while it was not: its stop's field, else its signal. */
function stoppedBy(scope: TurnScope): string | null {
  const { stop, signal } = scope;
  if (stop) return stop.reason;
  return signal.aborted ? abortReason(signal.reason) : null;
}

/**
 * The turn's scope with its budget and approvals, built field by field: spreading the loop's
 * scope (`{ ...scope, budget }`) took V8's slow generic copy, two-thirds of a conversation
 * turn's own time in the medium (bench/loop.bench.mjs). Every key is required here, so a field
 * added to TurnScope fails the typecheck until it is copied too.
 */
function callScopeOf(scope: TurnScope, budget: GateBudget, approvals: ApprovalRecord[]): CallScope {
  const out: { [K in keyof Required<CallScope>]: CallScope[K] } = {
    entityId: scope.entityId,
    turnId: scope.turnId,
    signal: scope.signal,
    stop: scope.stop,
    requireDone: scope.requireDone,
    onGateStart: scope.onGateStart,
    onGateUnrecorded: scope.onGateUnrecorded,
    approver: scope.approver,
    budget,
    approvals,
  };
  return out;
}

/** The assistant message, built once; it carries what the provider needs back (signed thinking). */
function assistantMessage(response: LLMResponse, calls: ToolCall[]): Message {
  const { content, providerData } = response;
  // Built whole, not spread from optional parts: this runs on every turn.
  if (providerData)
    return calls.length
      ? { role: "assistant", content, toolCalls: calls, providerData }
      : { role: "assistant", content, providerData };
  return calls.length
    ? { role: "assistant", content, toolCalls: calls }
    : { role: "assistant", content };
}

/** LOOP-6 as in every medium: text ends the loop unless only done may end it. */
function textOnly(assistant: Message, content: string, requireDone: boolean): MediumStep {
  if (!requireDone)
    return {
      utterance: content,
      observation: "",
      gateCalls: [],
      messages: [assistant],
      outcome: { kind: "text", content },
    };
  return {
    utterance: content,
    observation: DONE_REMINDER,
    gateCalls: [],
    messages: [assistant, { role: "user", content: DONE_REMINDER }],
    outcome: { kind: "continue" },
  };
}
