import type { QuickJSHandle } from "quickjs-emscripten";
import type { MemoryCharge } from "./lane-memory.js";
import type { SandboxLimits } from "./limits.js";
import type { SandboxSetup, WireReply } from "./protocol.js";
import { RunReader, UNRENDERABLE, type EvalResult } from "./reader.js";
import { Run, type EvalOutput } from "./run.js";
import { takeShell, type GateAnswer, type Shell, type SpareLane } from "./shell.js";
import { gateArguments, toVm } from "./vm-values.js";

/** Compute budget for reading a run's outcome (getters, toJSON of the entity's values). */
const RENDER_MS = 250;
/** Heap headroom for reading the outcome of a run that used up its memory. */
const RENDER_HEADROOM = 2 * 1024 * 1024;

/**
 * QuickJS's own memory limit, a second bound behind the heap ward (lane-memory.ts): in this
 * build it counts 8 bytes per allocation whatever its size, so it only stops swarms of small
 * objects. Twice the limit: the heap ward comes first, and its out-of-memory error can be built.
 */
const quickjsLimit = (limits: SandboxLimits): number => limits.memoryBytes * 2;

/** What a sandbox needs of the lane it lives in (lane-host.ts). */
export interface CoreLane extends SpareLane {
  /** A gate call of the running code, answered by the main thread (the worker waits). */
  gate(id: number, name: string, args: unknown[]): WireReply;
  /** LOOM-11: the entity's turns after `known`, as JSON text. */
  loom(id: number, known: number): string;
  /** The main thread asked the running code to stop. */
  stopRequested(): boolean;
  /** The lane takes no new sandboxes and goes once its last one is gone. */
  retire(): void;
  /** The run is over; its outcome is being read (the main thread's watchdog allows for it). */
  rendering(): void;
}

/**
 * One entity's sandbox, inside a lane's worker: its own QuickJS runtime and context in the
 * lane's module instance. Variables persist across evaluations (MEDIUM-3). Nothing of the host
 * is reachable from inside but the gate functions, console and `loom` (MEDIUM-2 isolation).
 */
export class SandboxCore {
  private run: Run | undefined;
  private renderDeadline = 0;
  private runs = 0;
  /** Whether this run already read the loom (the prelude keeps what it was given). */
  private loomRead = false;
  /** Ran out of memory: its runtime may hold leaked objects and must not be freed. */
  private tainted = false;
  private readonly reader: RunReader;
  /** This sandbox's share of its lane's heap (max_memory_mb, see lane-memory.ts). */
  private readonly charge: MemoryCharge;
  private readonly targets: readonly string[];
  private readonly shell: Shell;
  private readonly limits: SandboxLimits;

  constructor(
    private readonly id: number,
    private readonly lane: CoreLane,
    setup: SandboxSetup,
  ) {
    const shell = takeShell(lane);
    this.shell = shell;
    this.limits = setup.limits;
    this.charge = lane.memory.admit(setup.limits.memoryBytes);
    this.reader = new RunReader(shell);
    try {
      this.targets = this.install(setup);
    } catch (err) {
      lane.memory.leave(this.charge);
      shell.dispose();
      throw err;
    }
    const { limits } = this;
    shell.bridge = {
      call: (target, args, length) => this.onGateCall(target, args, length),
      print: (level, text) => this.run?.print(level, text),
      interrupt: () =>
        this.run
          ? this.run.shouldInterrupt(limits.evalMs)
          : this.renderDeadline !== 0 && performance.now() > this.renderDeadline,
      loom: (known) => this.onLoom(known),
    };
  }

  /** The gates, aliases, warded names and state, defined in the fresh context. */
  private install(setup: SandboxSetup): string[] {
    const { runtime, helpers } = this.shell;
    runtime.setMaxStackSize(setup.limits.stackBytes);
    // A gate function names its gate by an index into `targets`: a number crosses cheaper.
    const targets = [...setup.gates];
    const aliases: Record<string, number> = {};
    for (const [alias, target] of Object.entries(setup.aliases)) {
      const i = targets.indexOf(target);
      aliases[alias] = i >= 0 ? i : targets.push(target) - 1;
    }
    // LOOM-11, unless a gate or a variable of the circle has the name.
    const loom = setup.loom === true && !targets.includes("loom") && !("loom" in setup.state);
    const { gates, warded } = setup;
    this.lane.memory.chargedTo(this.charge, () => {
      this.call(helpers.install, JSON.stringify({ gates, aliases, warded, loom }));
      runtime.setMemoryLimit(quickjsLimit(setup.limits));
      for (const [name, value] of Object.entries(setup.state))
        this.call(helpers.define, name, JSON.stringify(value ?? null));
    });
    return targets;
  }

  /** Runs one piece of code to its end, a gate's `stop`, a ward or the main thread's stop. */
  evaluate(code: string): EvalOutput {
    const run = new Run(() => this.lane.stopRequested());
    this.run = run;
    this.loomRead = false;
    let result: EvalResult;
    // The lane runs one evaluation at a time: heap growth meanwhile is this sandbox's.
    this.lane.memory.startRun(this.charge);
    this.shell.pace?.reset();
    const refused = this.lane.memory.refused;
    try {
      result = this.shell.context.evalCode(code, `run-${++this.runs}.js`);
    } finally {
      this.run = undefined;
      this.lane.memory.running = undefined;
    }
    return this.read(result, run, this.lane.memory.refused > refused);
  }

  dispose(): void {
    this.shell.bridge = undefined;
    this.lane.memory.leave(this.charge);
    // A runtime that ran out of memory may hold leaked objects: freeing it would abort the module.
    if (!this.tainted) this.shell.dispose();
    if (this.lane.memory.oversized) this.lane.retire();
  }

  /** `starved`: the memory ward refused the heap growth the code asked for. */
  private read(result: EvalResult, run: Run, starved: boolean): EvalOutput {
    const { runtime } = this.shell;
    this.lane.rendering();
    this.renderDeadline = performance.now() + RENDER_MS;
    // Headroom to render an error even when the code used up its memory.
    if (result.error) runtime.setMemoryLimit(quickjsLimit(this.limits) + RENDER_HEADROOM);
    try {
      const out = this.reader.read(result, run, this.limits.evalMs);
      // Out of heap, QuickJS may not even build its error and throws null instead.
      if (starved && out.error?.name === "Thrown" && out.error.message === "null")
        out.error = { name: "InternalError", message: "out of memory", stack: "" };
      if (out.error?.message === "out of memory" || out.error?.message === UNRENDERABLE) {
        this.tainted = true;
        this.lane.retire();
      }
      return out;
    } finally {
      if (result.error) runtime.setMemoryLimit(quickjsLimit(this.limits));
      this.renderDeadline = 0;
    }
  }

  /** Calls a prelude helper with string arguments; a failure is thrown as a host error. */
  private call(fn: QuickJSHandle, ...args: string[]): void {
    const ctx = this.shell.context;
    const handles = args.map((a) => ctx.newString(a));
    try {
      const r = ctx.callFunction(fn, ctx.undefined, ...handles);
      if (r.error) {
        const view = this.reader.errorView(r.error);
        throw new Error(`${view.name}: ${view.message}`);
      }
      r.value.dispose();
    } finally {
      for (const h of handles) h.dispose();
    }
  }

  /** The bridge of every gate function: the worker waits for the main thread's answer. */
  private onGateCall(
    targetH: QuickJSHandle,
    argsH: QuickJSHandle | undefined,
    lengthH: QuickJSHandle | undefined,
  ): GateAnswer {
    const ctx = this.shell.context;
    const run = this.run;
    // Only the running code may cross the boundary: not a getter run while rendering a result,
    // not a promise job after the run, not a toJSON while a gate is already pending.
    if (!run || run.inGate) {
      return {
        error: ctx.newError(
          "gates can only be called by the running code, one at a time (not from promise callbacks, getters or toJSON)",
        ),
      };
    }
    if (run.stop) return { error: ctx.newError(`skipped: the run is stopping (${run.stop})`) };
    const name = this.targets[ctx.getNumber(targetH)] ?? "";
    const args = gateArguments(this.shell, argsH, lengthH);
    if (!args) return { error: ctx.newError(`${name}: arguments must be JSON data`) };
    run.inGate = true;
    const started = performance.now();
    let reply: WireReply;
    try {
      reply = this.lane.gate(this.id, name, args);
    } finally {
      run.inGate = false;
      run.pausedMs += performance.now() - started; // max_eval_ms counts the code, not the gates
    }
    if (!reply.ok) {
      if (reply.cancelled) run.stop ??= "aborted"; // the interrupt makes it uncatchable
      return { error: ctx.newError(reply.message) };
    }
    if (reply.stop) run.stop = "done";
    return toVm(this.shell, reply);
  }

  /** LOOM-11: the thread crosses once per run, and only when the code reads `loom`. */
  private onLoom(known: number): GateAnswer {
    const run = this.run;
    if (!run || this.loomRead) return undefined;
    this.loomRead = true;
    const started = performance.now();
    try {
      return this.shell.context.newString(this.lane.loom(this.id, known));
    } finally {
      run.pausedMs += performance.now() - started;
    }
  }
}
