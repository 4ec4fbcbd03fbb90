import type { LLMResponse, ToolCall } from "../../../core/contract.js";
import type { Entity } from "../../../core/entity.js";
import type {
  EntityContext,
  GateHost,
  MediumSession,
  MediumStep,
  RebuildTurn,
  TurnScope,
} from "../../medium.js";
import { numberWard } from "../../../core/wards.js";
import type { GateCallRecord, GateContext, GateOutcome } from "../../gate.js";
import { DELEGATION_GATES, DONE } from "../../gate-names.js";
import { keepRecord, settle } from "../../gate-budget.js";
import {
  MediumTurn,
  codeUtterance,
  gateContext,
  ephemeralNote,
  joinedObservation,
  type CallRun,
  type CallScope,
} from "../../medium-turn.js";
import { namedArguments } from "./arguments.js";
import { JS_TOOL } from "./capability.js";
import { renderObservation } from "./observation.js";
import { rebuildTurns } from "./rebuild.js";
import {
  loadCodeEngine,
  sandboxLimits,
  Sandbox,
  type GateReply,
  type SandboxSetup,
} from "../../../sandbox/index.js";

/** One entity's life in a code circle: its sandbox persists across turns and sends (MEDIUM-3). */
export class CodeSession implements MediumSession {
  private sandbox: Sandbox | undefined;
  private opening: Promise<Sandbox> | undefined;
  private disposed = false;
  private readonly turn: MediumTurn;

  constructor(
    private readonly circle: GateHost,
    private readonly context: EntityContext<Entity>,
    private readonly state: Readonly<Record<string, unknown>>,
  ) {
    this.turn = new MediumTurn(circle, {
      runCall: (call, scope) => this.run(call, scope),
      utterance: codeUtterance,
      observation: joinedObservation,
      trimmed: (run) => this.trimmed(run.records),
    });
  }

  execute(response: LLMResponse, scope: TurnScope): MediumStep | Promise<MediumStep> {
    return this.turn.execute(response, scope);
  }

  /**
   * PROD-5: an ephemeral gate's result leaves the working context after the next turn; the loom
   * keeps it. Whatever the run printed or returned may carry that result too, so the trimmed
   * observation keeps only the gate calls, with the ephemeral results replaced.
   */
  private trimmed(records: readonly GateCallRecord[]): string {
    const kept = records.map((r) =>
      !r.is_error && this.circle.gates.get(r.gate_name)?.ephemeral
        ? { ...r, result: ephemeralNote(r.result.length) }
        : r,
    );
    return (
      renderObservation(kept, { console: "", consoleDropped: 0 }) +
      "\n[the console and last value of this run are removed from context with the ephemeral results; the loom keeps them]"
    );
  }

  /** A fork's sandbox: the recorded code runs again, gates answered from the loom (LOOM-13). */
  async rebuild(turns: readonly RebuildTurn[], signal: AbortSignal): Promise<void> {
    const sandbox = this.sandbox ?? (await this.open());
    await rebuildTurns(sandbox, turns, signal, this.setup().aliases);
  }

  dispose(): void {
    this.disposed = true;
    this.turn.dispose();
    this.sandbox?.dispose();
    this.sandbox = undefined;
    void this.opening?.then(
      (s) => s.dispose(),
      () => undefined,
    );
  }

  private async run(call: ToolCall, scope: CallScope): Promise<CallRun> {
    if (call.name !== JS_TOOL.name) {
      const text = `error: unknown tool ${JSON.stringify(call.name)}: in a code circle the only tool is js; call gates as functions inside your code`;
      return { records: [], text, isError: true };
    }
    const code = codeOf(call);
    if (code === undefined)
      return {
        records: [],
        text: 'error: the js tool takes {"code": "<JavaScript source>"}',
        isError: true,
      };
    const sandbox = this.sandbox ?? (await this.open());
    const ctx = gateContext(scope, this.context);
    const run: CallRun = { records: [], text: "", isError: false, code };
    const out = await sandbox.evaluate(code, {
      signal: scope.signal,
      callGate: (name, args) => this.callGate(name, args, ctx, run),
      // LOOM-11: read from the loom only when the code reads `loom`.
      loom: (known) => JSON.stringify(this.context.entity.loomThread(known)),
    });
    if (out.crashed && this.sandbox === sandbox) {
      sandbox.dispose();
      this.sandbox = undefined; // the next run opens a fresh sandbox
    }
    run.text = renderObservation(run.records, out);
    run.isError = out.error !== undefined && run.done === undefined;
    if (run.isError) run.error = `${out.error!.name}: ${out.error!.message}`;
    return run;
  }

  /** A gate called from the code: recorded on the run, answered to the sandbox. */
  private callGate(
    name: string,
    args: unknown[],
    ctx: GateContext,
    run: CallRun,
  ): GateReply | Promise<GateReply> {
    const gate = this.circle.gates.get(name);
    const named = namedArguments(gate, name, args);
    if (typeof named === "string") {
      const record = {
        gate_name: name,
        arguments: JSON.stringify(args),
        result: named,
        is_error: true,
      };
      const kept = settle(ctx, { record, value: undefined, ok: false });
      keepRecord(run.records, kept);
      return { ok: false, message: kept.record.result };
    }
    // The call's JSON text: "{}" is known without encoding (most calls take no arguments).
    const text = args.length === 0 ? "{}" : undefined;
    const reply = (result: GateOutcome): GateReply => {
      keepRecord(run.records, result); // every gate the code called, in order (CIRCLE-7)
      if (!result.ok) return { ok: false, message: result.record.result }; // CIRCLE-5
      if (name !== DONE) return { ok: true, value: result.value };
      // LOOP-3; a malformed done failed above and does not end the loop (LOOP-7)
      run.done = { result: result.value };
      return { ok: true, value: result.value, stop: true };
    };
    // A synchronous gate answers at once: the sandbox need not suspend for it.
    const result = this.circle.callGate(name, named, ctx, text);
    return result instanceof Promise ? result.then(reply) : reply(result);
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
      for (const name of DELEGATION_GATES) {
        if (!gates.includes(name)) {
          // COMP-6: the gate is not in this circle; calling it says why, not just "not defined".
          warded[name] =
            `${name} is not defined in this circle: delegation gates are warded off when max_depth is 0`;
        }
      }
    }
    const limits = sandboxLimits(this.circle.wards);
    return { gates, aliases, warded, state: this.state, limits, loom: true };
  }
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
