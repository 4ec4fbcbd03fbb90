import type { LLMResponse, ToolCall } from "../../core/contract.js";
import { toolDefinition, type GateContext } from "../gate.js";
import { DONE } from "../gate-names.js";
import type { GateHost, Medium } from "../medium.js";
import {
  MediumTurn,
  gateContext,
  ephemeralNote,
  type CallRun,
  type CallScope,
  type TurnRules,
} from "../medium-turn.js";

/** A tool-calling circle: each gate is a tool, tool_choice auto (§4.5, §4.6). */
export const conversationMedium: Medium = {
  name: "conversation",
  present(circle) {
    return { tools: [...circle.gates.values()].map(toolDefinition), toolChoice: "auto" };
  },
  open(circle, context) {
    const rules = conversationRules(circle, context);
    const turn = new MediumTurn(circle, rules);
    return {
      execute: (response, scope) => turn.execute(response, scope),
      dispose: () => turn.dispose(),
    };
  },
};

/** Each tool call is one gate call; its result is the tool message. */
function conversationRules(
  circle: GateHost,
  context: Pick<GateContext, "entity" | "depth">,
): TurnRules {
  const run = (call: ToolCall, out: Awaited<ReturnType<GateHost["callGate"]>>): CallRun => ({
    // A call refused past the turn's budget after the first is answered, not recorded (issue 20).
    records: out.unrecorded ? [] : [out.record],
    text: out.record.result,
    isError: out.record.is_error,
    // LOOP-3 stops after a done that worked; LOOP-7: a failed done does not terminate.
    done: call.name === DONE && out.ok ? { result: out.value } : undefined,
  });
  return {
    runCall(call: ToolCall, scope: CallScope) {
      const ctx = gateContext(scope, context);
      const out = circle.callGate(call.name, call.input ?? call.arguments, ctx, call.arguments);
      return out instanceof Promise ? out.then((o) => run(call, o)) : run(call, out);
    },
    utterance: (response: LLMResponse) =>
      response.content ?? callsUtterance(response.toolCalls ?? []),
    observation: renderObservation,
    trimmed: (_run, content) => ephemeralNote(content.length),
  };
}

/** A tool-calling utterance as the loom shows it: one `gate(arguments)` line per call. */
function callsUtterance(calls: readonly ToolCall[]): string {
  let out = "";
  for (const c of calls) out += `${out ? "\n" : ""}${c.name}(${c.arguments})`;
  return out;
}

/** The turn's observation for the loom: one line per gate call, in order (CIRCLE-7). */
function renderObservation(runs: readonly CallRun[]): string {
  let out = "";
  for (const run of runs)
    for (const r of run.records)
      out += `${out ? "\n" : ""}${r.gate_name}${r.is_error ? " (error)" : ""}: ${r.result}`;
  return out;
}
