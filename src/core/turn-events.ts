/**
 * The events of one finished turn (ARCHITECTURE.md: events never steer the loop): a tool_call
 * for each gate call the medium answered without reaching a gate (the others went out as the
 * call began), a tool_result per call, and step_complete. Built only while someone listens.
 */
import { cutQuote } from "./cut-quote.js";
import type { LLMResponse } from "./contract.js";
import type { EventBus } from "./events.js";
import type { GateCallRecord, MediumStep } from "./medium.js";
import type { TurnOutcome } from "./outcome.js";

/** The most characters of a turn's error its `step_complete` event carries: one short line. */
export const ERROR_LINE_CHARS = 200;

export interface FinishedTurn {
  turnId: string;
  sequence: number;
  step: MediumStep;
  response: LLMResponse;
  outcome: TurnOutcome;
  durationMs: number;
}

/**
 * `begun`: the gates whose tool_call went out as the call began, this turn (consumed here).
 * `unrecorded`: the calls answered without a record (past the turn's gate budget, gate-budget.ts):
 * each comes after every recorded call of the turn (the first refusal is recorded, every later
 * call is not), so their results follow the records' in the order the calls were made, and every
 * tool_call has its tool_result (is_error, the refusal as its content).
 */
export function emitTurnEvents(
  bus: EventBus,
  entityId: string,
  begun: string[],
  unrecorded: readonly GateCallRecord[],
  turn: FinishedTurn,
): void {
  const { step } = turn;
  for (const record of [...step.gateCalls, ...unrecorded]) {
    // A call the medium answered without reaching a gate had no start: its tool_call is here.
    const at = begun.indexOf(record.gate_name);
    if (at >= 0) begun.splice(at, 1);
    else
      bus.emit({
        type: "tool_call",
        entityId,
        gate: record.gate_name,
        arguments: record.arguments,
      });
    bus.emit({ type: "tool_result", entityId, record });
  }
  const isError = step.isError === true;
  bus.emit({
    type: "step_complete",
    entityId,
    sequence: turn.sequence,
    turnId: turn.turnId,
    gates: step.gateCalls.map((r) => r.gate_name),
    usage: turn.response.usage,
    durationMs: turn.durationMs,
    outcome: turn.outcome.kind === "continue" ? "continue" : turn.outcome.kind,
    isError,
    ...(isError ? { error: firstLine(step.error ?? step.observation) } : {}),
  });
}

/** The first non-blank line of an error, cut to ERROR_LINE_CHARS (with an ellipsis). */
function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0]!.trim();
  // Not through a key-like run: the events' redaction would not know a secret's start alone.
  return cutQuote(line, ERROR_LINE_CHARS - 1);
}

/** A provider's text field of the reply's metadata (`id`, `model`), when it gave one. */
export function metadataText(response: LLMResponse, key: string): string | undefined {
  const value = response.metadata?.[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The finish reason the provider reported (OpenAI-wire `finish_reason`, Anthropic `stop_reason`). */
export function providerFinishReason(response: LLMResponse): string | undefined {
  const reason = response.metadata?.["finish_reason"] ?? response.metadata?.["stop_reason"];
  return typeof reason === "string" ? reason : undefined;
}
