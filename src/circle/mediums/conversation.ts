import type { LLMResponse, ToolCall } from "../../core/contract.js";
import { toolDefinition, type GateContext, type GateOutcome } from "../gate.js";
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
import { keepShape } from "../../core/kept-shapes.js";

/** A tool-calling circle: each gate is a tool, tool_choice auto (§4.5, §4.6). */
export const conversationMedium: Medium = {
  name: "conversation",
  present(circle) {
    return { tools: [...circle.gates.values()].map(toolDefinition), toolChoice: "auto" };
  },
  open(circle, context) {
    // The turn itself is the session, and its rules a class: the calls of every turn go to
    // methods every entity shares, not to closures made per entity (optimized code that
    // inlined such a closure is thrown away once its entity is collected). BENCH.md, issue 40.
    return new MediumTurn(circle, new ConversationRules(circle, context));
  },
};

/** Each tool call is one gate call; its result is the tool message. */
class ConversationRules implements TurnRules {
  constructor(
    private readonly circle: GateHost,
    private readonly context: Pick<GateContext, "entity" | "depth">,
  ) {}

  runCall(call: ToolCall, scope: CallScope): CallRun | Promise<CallRun> {
    const ctx = gateContext(scope, this.context);
    const out = this.circle.callGate(call.name, call.input ?? call.arguments, ctx, call.arguments);
    return out instanceof Promise ? out.then((o) => callRun(call, o)) : callRun(call, out);
  }

  utterance(response: LLMResponse): string {
    return response.content ?? callsUtterance(response.toolCalls ?? []);
  }

  observation(runs: readonly CallRun[]): string {
    return renderObservation(runs);
  }

  trimmed(_run: CallRun, content: string): string {
    return ephemeralNote(content.length);
  }
}

// Made per entity: its map outlives the casts through this one, which holds nothing
// (core/kept-shapes.ts).
keepShape(new ConversationRules(null as never, null as never));

/** A gate call's outcome as the turn takes it. */
function callRun(call: ToolCall, out: GateOutcome): CallRun {
  return {
    // A call refused past the turn's budget after the first is answered, not recorded (issue 20).
    records: out.unrecorded ? [] : [out.record],
    text: out.record.result,
    isError: out.record.is_error,
    // LOOP-3 stops after a done that worked; LOOP-7: a failed done does not terminate.
    done: call.name === DONE && out.ok ? { result: out.value } : undefined,
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
