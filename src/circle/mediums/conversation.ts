import type { LLMResponse, Message, ToolCall } from "../../llm/contract.js";
import type { Circle } from "../circle.js";
import { toolDefinition, type GateCallRecord } from "../gate.js";
import { DONE } from "../gates/done.js";
import type { Medium, MediumSession, MediumStep, Presentation, TurnScope } from "../medium.js";

/** Shown after a text-only reply when only `done` may end the loop (LOOP-6). */
export const DONE_REMINDER =
  "No gate was called. Continue with the task; call the done gate with your answer when finished.";

/** What stays in the working context of an ephemeral gate's result after the next turn (PROD-5). */
export const ephemeralNote = (chars: number): string =>
  `[ephemeral result removed from context (${chars} chars); the loom keeps it — call the gate again if needed]`;

const SKIPPED = "skipped: done was called earlier in this utterance (LOOP-3)";

/** A tool-calling circle: each gate is a tool, tool_choice auto (§4.5, §4.6). */
export const conversationMedium: Medium = {
  name: "conversation",
  present(circle: Circle): Presentation {
    return { tools: [...circle.gates.values()].map(toolDefinition), toolChoice: "auto" };
  },
  open(circle, services) {
    return new ConversationSession(circle, services);
  },
};

class ConversationSession implements MediumSession {
  /** Tool messages of ephemeral gates from the previous turn, trimmed after this one (PROD-5). */
  private ephemeral: Message[] = [];

  constructor(
    private readonly circle: Circle,
    private readonly services: Readonly<Record<string, unknown>>,
  ) {}

  async execute(response: LLMResponse, scope: TurnScope): Promise<MediumStep> {
    this.trimEphemeral();
    const calls = response.toolCalls ?? [];
    const assistant: Message = { role: "assistant", content: response.content };
    if (calls.length) assistant.toolCalls = calls;
    // What the provider needs back with this message (Anthropic's signed thinking blocks).
    if (response.providerData) assistant.providerData = response.providerData;
    const utterance = response.content ?? callsUtterance(calls);
    if (calls.length === 0) {
      const content = response.content ?? "";
      if (!scope.requireDone) {
        return {
          utterance,
          observation: "",
          gateCalls: [],
          messages: [assistant],
          outcome: { kind: "text", content },
        };
      }
      const reminder: Message = { role: "user", content: DONE_REMINDER };
      return {
        utterance,
        observation: DONE_REMINDER,
        gateCalls: [],
        messages: [assistant, reminder],
        outcome: { kind: "continue" },
      };
    }
    const records: GateCallRecord[] = [];
    const messages: Message[] = [assistant];
    let done: { result: unknown } | undefined;
    const ctx = {
      entityId: scope.entityId,
      turnId: scope.turnId,
      signal: scope.signal,
      services: this.services,
    };
    for (const call of calls) {
      if (done || scope.signal.aborted) {
        // Every call still gets a result so the history stays well paired (LLM-7).
        // LOOP-4: after a ward fires, nothing more runs.
        const content = done
          ? SKIPPED
          : `skipped: the loop was stopped (${typeof scope.signal.reason === "string" ? scope.signal.reason : "aborted"})`;
        messages.push({ role: "tool", toolCallId: call.id, content });
        continue;
      }
      const out = await this.circle.callGate(
        call.name,
        call.input ?? call.arguments,
        ctx,
        call.arguments,
      );
      records.push(out.record);
      const message: Message = { role: "tool", toolCallId: call.id, content: out.record.result };
      if (out.record.is_error) message.isError = true;
      messages.push(message);
      if (out.ok && this.circle.gates.get(call.name)?.ephemeral) this.ephemeral.push(message);
      // LOOP-3 stops after a done that worked; LOOP-7: a failed done does not terminate.
      if (call.name === DONE && out.ok) done = { result: out.value };
    }
    return {
      utterance,
      observation: renderObservation(records),
      gateCalls: records,
      messages,
      outcome: done ? { kind: "done", result: done.result } : { kind: "continue" },
    };
  }

  private trimEphemeral(): void {
    for (const m of this.ephemeral) {
      if (m.role === "tool") {
        const size = m.content.length;
        m.content = ephemeralNote(size);
      }
    }
    this.ephemeral = [];
  }

  dispose(): void {
    this.ephemeral = [];
  }
}

/** A tool-calling utterance as the loom shows it: one `gate(arguments)` line per call. */
function callsUtterance(calls: readonly ToolCall[]): string {
  let out = "";
  for (const c of calls) out += `${out ? "\n" : ""}${c.name}(${c.arguments})`;
  return out;
}

/** The turn's observation for the loom: one line per gate call, in order (CIRCLE-7). */
function renderObservation(records: readonly GateCallRecord[]): string {
  let out = "";
  for (const r of records)
    out += `${out ? "\n" : ""}${r.gate_name}${r.is_error ? " (error)" : ""}: ${r.result}`;
  return out;
}
