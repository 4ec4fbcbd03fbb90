import type { LLMResponse, Message, ToolCall } from "../../../llm/contract.js";
import { numberWard } from "../../../core/wards.js";
import type { Circle, GateOutcome } from "../../circle.js";
import type { GateCallRecord, GateContext } from "../../gate.js";
import { DONE } from "../../gates/done.js";
import type { MediumSession, MediumStep, TurnScope } from "../../medium.js";
import { DONE_REMINDER, ephemeralNote } from "../conversation.js";
import { namedArguments } from "./arguments.js";
import { JS_TOOL } from "./capability.js";
import { loadCodeEngine } from "./engine.js";
import { sandboxLimits } from "./limits.js";
import { renderObservation } from "./observation.js";
import { Sandbox, type GateReply, type SandboxSetup } from "./sandbox.js";

const SKIPPED = "skipped: done was called earlier in this utterance (LOOP-3)";
const DELEGATION = ["call_entity", "call_entity_batch"];

/** One entity's life in a code circle: its sandbox persists across turns and sends (MEDIUM-3). */
export class CodeSession implements MediumSession {
  private sandbox: Sandbox | undefined;
  private opening: Promise<Sandbox> | undefined;
  private disposed = false;
  /** Observations of the previous turn that hold ephemeral results, trimmed after this one (PROD-5). */
  private ephemeral: { message: { content: string }; records: GateCallRecord[] }[] = [];

  constructor(
    private readonly circle: Circle,
    private readonly services: Readonly<Record<string, unknown>>,
    private readonly state: Readonly<Record<string, unknown>>,
  ) {}

  async execute(response: LLMResponse, scope: TurnScope): Promise<MediumStep> {
    if (this.ephemeral.length) this.trimEphemeral();
    const calls = response.toolCalls ?? [];
    // Messages are built whole, not spread from optional parts: this runs on every turn.
    const assistant: Message = calls.length
      ? { role: "assistant", content: response.content, toolCalls: calls }
      : { role: "assistant", content: response.content };
    if (calls.length === 0) return textOnly(assistant, response.content ?? "", scope.requireDone);
    const messages: Message[] = [assistant];
    const records: GateCallRecord[] = [];
    const observations: string[] = [];
    const codes: string[] = [];
    const done: { called: boolean; result?: unknown } = { called: false };
    for (const call of calls) {
      if (done.called) {
        messages.push({ role: "tool", toolCallId: call.id, content: SKIPPED });
        continue;
      }
      const run = await this.run(call, scope, done);
      for (const record of run.records) records.push(record);
      if (run.code !== undefined) codes.push(run.code);
      observations.push(run.text);
      const toolCallId = call.id;
      const message: Message = run.isError
        ? { role: "tool", toolCallId, content: run.text, isError: true }
        : { role: "tool", toolCallId, content: run.text };
      messages.push(message);
      if (run.records.some((r) => !r.is_error && this.circle.gates.get(r.gate_name)?.ephemeral))
        this.ephemeral.push({ message, records: run.records });
    }
    return {
      utterance:
        codes.length === 1
          ? codes[0]!
          : codes.length
            ? codes.join("\n\n")
            : (response.content ?? ""),
      observation: observations.join("\n\n"),
      gateCalls: records,
      messages,
      outcome: done.called ? { kind: "done", result: done.result } : { kind: "continue" },
    };
  }

  /**
   * PROD-5: an ephemeral gate's result leaves the working context after the next turn; the loom
   * keeps it. Whatever the run printed or returned may carry that result too, so the trimmed
   * observation keeps only the gate calls, with the ephemeral results replaced.
   */
  private trimEphemeral(): void {
    for (const { message, records } of this.ephemeral) {
      const kept = records.map((r) =>
        !r.is_error && this.circle.gates.get(r.gate_name)?.ephemeral
          ? { ...r, result: ephemeralNote(r.result.length) }
          : r,
      );
      message.content =
        renderObservation(kept, { console: "", consoleDropped: 0 }) +
        "\n[the console and last value of this run are removed from context with the ephemeral results; the loom keeps them]";
    }
    this.ephemeral = [];
  }

  dispose(): void {
    this.disposed = true;
    this.ephemeral = [];
    this.sandbox?.dispose();
    this.sandbox = undefined;
    void this.opening?.then(
      (s) => s.dispose(),
      () => undefined,
    );
  }

  private async run(call: ToolCall, scope: TurnScope, done: { called: boolean; result?: unknown }) {
    const records: GateCallRecord[] = [];
    if (call.name !== JS_TOOL.name) {
      const text = `error: unknown tool ${JSON.stringify(call.name)}: in a code circle the only tool is js; call gates as functions inside your code`;
      return { records, text, isError: true, code: undefined };
    }
    const code = codeOf(call);
    if (code === undefined)
      return {
        records,
        text: 'error: the js tool takes {"code": "<JavaScript source>"}',
        isError: true,
        code,
      };
    const sandbox = this.sandbox ?? (await this.open());
    const ctx: GateContext = {
      entityId: scope.entityId,
      turnId: scope.turnId,
      signal: scope.signal,
      services: this.services,
    };
    const out = await sandbox.evaluate(code, {
      signal: scope.signal,
      callGate: (name, args): GateReply | Promise<GateReply> => {
        const gate = this.circle.gates.get(name);
        const named = namedArguments(gate, name, args);
        if (typeof named === "string") {
          records.push({
            gate_name: name,
            arguments: JSON.stringify(args),
            result: named,
            is_error: true,
          });
          return { ok: false, message: named };
        }
        // The call's JSON text: "{}" is known without encoding (most calls take no arguments).
        const text = args.length === 0 ? "{}" : undefined;
        const reply = (result: GateOutcome): GateReply => {
          records.push(result.record); // every gate the code called, in order (CIRCLE-7)
          if (!result.ok) return { ok: false, message: result.record.result }; // CIRCLE-5
          if (name !== DONE) return { ok: true, value: result.value };
          done.called = true; // LOOP-3; a malformed done failed above and does not end the loop (LOOP-7)
          done.result = result.value;
          return { ok: true, value: result.value, stop: true };
        };
        // A synchronous gate answers at once: the sandbox need not suspend for it.
        const result = this.circle.callGate(name, named, ctx, text);
        return result instanceof Promise ? result.then(reply) : reply(result);
      },
    });
    if (out.crashed && this.sandbox === sandbox) {
      sandbox.dispose();
      this.sandbox = undefined; // the next run opens a fresh sandbox
    }
    return {
      records,
      text: renderObservation(records, out),
      isError: out.error !== undefined && !done.called,
      code,
    };
  }

  /** The entity's sandbox; a dead one is returned once, so the entity hears that it was lost. */
  private async open(): Promise<Sandbox> {
    if (this.sandbox) return this.sandbox;
    this.opening ??= loadCodeEngine().then((engine) => Sandbox.open(engine, this.setup()));
    try {
      const sandbox = await this.opening;
      if (this.disposed) sandbox.dispose();
      this.sandbox = sandbox;
      return sandbox;
    } finally {
      this.opening = undefined;
    }
  }

  private setup(): SandboxSetup {
    const gates = [...this.circle.gates.keys()];
    const aliases: Record<string, string> = gates.includes("submit_answer")
      ? {}
      : { submit_answer: DONE };
    const warded: Record<string, string> = {};
    if (numberWard(this.circle.wards, "max_depth") === 0) {
      for (const name of DELEGATION) {
        if (!gates.includes(name)) {
          // COMP-6: the gate is not in this circle; calling it says why, not just "not defined".
          warded[name] =
            `${name} is not defined in this circle: delegation gates are warded off when max_depth is 0`;
        }
      }
    }
    return { gates, aliases, warded, state: this.state, limits: sandboxLimits(this.circle.wards) };
  }
}

function textOnly(assistant: Message, content: string, requireDone: boolean): MediumStep {
  // LOOP-6 as in every medium: text ends the loop unless only done may end it.
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

function codeOf(call: ToolCall): string | undefined {
  const decoded = call.input?.["code"]; // the provider decoded the arguments already
  if (typeof decoded === "string") return decoded;
  const args = call.arguments;
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === "string") return parsed;
    const code = (parsed as { code?: unknown } | null)?.code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return args.trim() ? args : undefined; // some models send the source itself, not JSON
  }
}
