/** The events that close a turn, for whoever listens (events observe, they never steer). */
import type { LLMResponse } from "./contract.js";
import type { EventBus } from "./events.js";
import type { MediumStep } from "./medium.js";
import type { TurnOutcome } from "./outcome.js";

export interface TurnEnd {
  entityId: string;
  turnId: string;
  sequence: number;
  step: MediumStep;
  response: LLMResponse;
  outcome: TurnOutcome;
  durationMs: number;
}

/**
 * A `tool_call` for each gate call whose start was not told (`begun`: the gates told as they
 * began, consumed here), a `tool_result` for each, then `step_complete`.
 */
export function emitTurnEnd(bus: EventBus, begun: string[], end: TurnEnd): void {
  const { entityId, step } = end;
  for (const record of step.gateCalls) {
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
  bus.emit({
    type: "step_complete",
    entityId,
    sequence: end.sequence,
    turnId: end.turnId,
    gates: step.gateCalls.map((r) => r.gate_name),
    usage: end.response.usage,
    durationMs: end.durationMs,
    outcome: end.outcome.type === "continue" ? "continue" : end.outcome.type,
  });
}
