import type { LLMResponse, ToolCall } from "../../../core/contract.js";
import type { Entity } from "../../../core/entity.js";
import type {
  EntityContext,
  GateHost,
  MediumSession,
  MediumStep,
  TurnScope,
} from "../../medium.js";
import { numberWard } from "../../../core/wards.js";
import type { GateContext } from "../../gate.js";
import { DONE } from "../../gate-names.js";
import { keepRecord, settle } from "../../gate-budget.js";
import { ask, deniedMessage } from "../../approvals.js";
import {
  MediumTurn,
  codeUtterance,
  gateContext,
  ephemeralNote,
  joinedObservation,
  type CallRun,
  type CallScope,
} from "../../medium-turn.js";
import { namedArguments } from "../code/arguments.js";
import { BASH_TOOL } from "./capability.js";
import { GateServer, type GateRequest, type GateResponse } from "./gate-server.js";
import { commandError, commandFailed, renderCommand } from "./observation.js";
import {
  DEFAULT_MAX_COMMAND_MS,
  DEFAULT_MAX_MEMORY_MB,
  DEFAULT_MAX_OUTPUT_KB,
  gateLimits,
  MAX_PROCESSES,
  type BashOptions,
} from "./options.js";
import {
  prepareCommand,
  type PreparedCommand,
  type RunningCommand,
  type SandboxSpec,
} from "./run-command.js";

/** The command running now, and where its gate calls are recorded. */
interface Current {
  run: CallRun;
  ctx: GateContext;
  command: RunningCommand;
}

/**
 * One entity in a bash circle: a gate server for its life, one sandboxed command per call. When a
 * command starts, the next command's sandbox is started too (`prepared`), ready by the time the
 * model has written that command: a fresh sandbox each time, only started earlier.
 */
export class BashSession implements MediumSession {
  private server: Promise<GateServer> | undefined;
  private current: Current | undefined;
  private prepared: PreparedCommand | undefined;
  private disposed = false;
  private readonly turn: MediumTurn;

  constructor(
    private readonly circle: GateHost,
    private readonly context: EntityContext<Entity>,
    private readonly options: BashOptions,
  ) {
    this.turn = new MediumTurn(circle, {
      runCall: (call, scope) => this.run(call, scope),
      utterance: codeUtterance,
      observation: joinedObservation,
      trimmed: (_run, content) => ephemeralNote(content.length),
    });
  }

  execute(response: LLMResponse, scope: TurnScope): MediumStep | Promise<MediumStep> {
    return this.turn.execute(response, scope);
  }

  dispose(): void {
    this.disposed = true;
    this.prepared?.discard();
    this.prepared = undefined;
    this.turn.dispose();
    this.current?.command.stop("the entity was disposed");
    void this.server?.then(
      (s) => s.close(),
      () => undefined,
    );
    this.server = undefined;
  }

  private get limits(): { maxCommandMs: number; maxOutputKb: number; maxMemoryMb: number } {
    const w = this.circle.wards;
    return {
      maxCommandMs: numberWard(w, "max_command_ms") ?? DEFAULT_MAX_COMMAND_MS,
      maxOutputKb: numberWard(w, "max_output_kb") ?? DEFAULT_MAX_OUTPUT_KB,
      maxMemoryMb: numberWard(w, "max_memory_mb") ?? DEFAULT_MAX_MEMORY_MB,
    };
  }

  private async run(call: ToolCall, scope: CallScope): Promise<CallRun> {
    if (call.name !== BASH_TOOL.name && call.name !== "js") {
      const text = `error: unknown tool ${JSON.stringify(call.name)}: in a bash circle the only tool is bash; gates are commands`;
      return { records: [], text, isError: true };
    }
    const command = commandOf(call);
    if (command === undefined)
      return {
        records: [],
        text: 'error: the bash tool takes {"command": "<shell command>"}',
        isError: true,
      };
    this.server ??= GateServer.open(
      [...this.circle.gates.keys()],
      (r) => this.gate(r),
      gateLimits(this.circle.wards),
    );
    const server = await this.server;
    const run: CallRun = { records: [], text: "", isError: false, code: command };
    const ctx = gateContext(scope, this.context);
    // Issue 25: a command an `approve: - command:` rule names waits for its answer.
    const rule = await this.circle.approvals?.asksCommand(command);
    if (rule !== undefined) {
      const answer = await ask(
        this.circle.approvals!,
        rule,
        "bash",
        JSON.stringify({ command }),
        ctx,
      );
      if (!answer.allowed)
        return { ...run, text: `error: ${deniedMessage("bash", answer)}`, isError: true };
    }
    const limits = this.limits;
    const sandbox = this.sandboxSpec(server.dir, limits.maxMemoryMb);
    const prepared = this.prepared ?? prepareCommand(sandbox);
    this.prepared = undefined;
    const running = prepared.start({
      command,
      timeoutMs: limits.maxCommandMs,
      maxOutputBytes: limits.maxOutputKb * 1024,
      signal: scope.signal,
    });
    // The next command's sandbox starts now, while this command runs and the model answers; a
    // session that ends discards it.
    if (!this.disposed) this.prepared = prepareCommand(sandbox);
    this.current = { run, ctx, command: running };
    try {
      const result = await running.result;
      run.text = renderCommand(result, limits);
      run.isError = run.done === undefined && commandFailed(result);
      if (run.isError) run.error = commandError(result, limits);
    } finally {
      this.current = undefined;
    }
    return run;
  }

  private sandboxSpec(gateDir: string, maxMemoryMb: number): SandboxSpec {
    return {
      mode: this.options.sandbox,
      root: this.options.root,
      writable: this.options.writable,
      gateDir,
      maxProcesses: MAX_PROCESSES,
      maxMemoryMb,
      gates: [...this.circle.gates.keys()],
    };
  }

  /** A gate command called back: the real gate runs on the host, recorded on the turn (CIRCLE-7). */
  private async gate(req: GateRequest): Promise<GateResponse> {
    const cur = this.current;
    if (!cur) return { ok: false, text: "error: no command of this entity is running" };
    const gate = this.circle.gates.get(req.gate);
    const named = namedArguments(gate, req.gate, wordsOf(req.args));
    if (typeof named === "string") {
      const record = {
        gate_name: req.gate,
        arguments: JSON.stringify(req.args),
        result: named,
        is_error: true,
      };
      const kept = settle(cur.ctx, { record, value: undefined, ok: false });
      keepRecord(cur.run.records, kept);
      return { ok: false, text: `error: ${kept.record.result}` };
    }
    const out = await this.circle.callGate(req.gate, named, cur.ctx);
    keepRecord(cur.run.records, out);
    if (!out.ok) return { ok: false, text: `error: ${out.record.result}` };
    if (req.gate === DONE && cur.run.done === undefined) {
      // LOOP-3: nothing of the command runs after done. The tree is killed, and done answers
      // only once the command has ended: were it to answer first, the shell could run the next
      // command before the kill reached the sandbox (bwrap's own session ends a moment later).
      cur.run.done = { result: out.value };
      cur.command.stop("done was called");
      await cur.command.result;
    }
    return { ok: true, text: out.record.result };
  }
}

/** A gate command's words; one word that is a JSON object is the named arguments. */
function wordsOf(args: string[]): unknown[] {
  if (args.length === 1 && /^\s*\{/.test(args[0]!)) {
    try {
      return [JSON.parse(args[0]!)];
    } catch {
      return args;
    }
  }
  return args;
}

function commandOf(call: ToolCall): string | undefined {
  const input = call.input;
  for (const key of ["command", "code"]) if (typeof input?.[key] === "string") return input[key];
  try {
    const parsed = JSON.parse(call.arguments) as Record<string, unknown> | string | null;
    if (typeof parsed === "string") return parsed;
    for (const key of ["command", "code"])
      if (typeof parsed?.[key] === "string") return parsed[key];
    return undefined;
  } catch {
    return call.arguments.trim() ? call.arguments : undefined;
  }
}
