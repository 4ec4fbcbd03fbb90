import type { QuickJSHandle, VmCallResult } from "quickjs-emscripten";
import { errorMessage } from "../../../core/errors.js";
import type { CodeEngine } from "./engine.js";
import type { Lane } from "./lane.js";
import type { SandboxLimits } from "./limits.js";
import { RunReader, UNRENDERABLE, type EvalResult } from "./reader.js";
import {
  crashOutput,
  Run,
  type EvalHooks,
  type EvalOutput,
  type GateReply,
  type SandboxSetup,
} from "./run.js";
import { takeShell, type GateAnswer, type Shell } from "./shell.js";

export type {
  EvalHooks,
  EvalOutput,
  GateReply,
  SandboxSetup,
  ValueView,
  ErrorView,
} from "./run.js";

/** Compute budget for reading a run's outcome (getters, toJSON of the entity's values). */
const RENDER_MS = 250;
/** Heap headroom for reading the outcome of a run that used up its memory. */
const RENDER_HEADROOM = 2 * 1024 * 1024;

/**
 * One entity's sandbox: its own QuickJS runtime and context in a lane of the shared module.
 * Variables persist across evaluations (MEDIUM-3). Nothing of the host is reachable from inside
 * but the gate functions and console (MEDIUM-2 isolation); every handle is disposed.
 */
export class Sandbox {
  readonly lane: Lane<Shell>;
  private run: Run | undefined;
  private renderDeadline = 0;
  private runs = 0;
  private disposed = false;
  private disposeWhenIdle = false;
  /** Ran out of memory: its runtime may hold leaked objects and must not be freed (see Lane.retiring). */
  private tainted = false;
  private readonly reader: RunReader;

  private constructor(
    private readonly engine: CodeEngine,
    private readonly shell: Shell,
    private readonly limits: SandboxLimits,
    /** The gates the sandbox's gate functions call, by the index they pass to the host. */
    private readonly targets: readonly string[],
  ) {
    this.lane = shell.lane;
    this.reader = new RunReader(shell);
    shell.bridge = {
      call: (target, args, length) => this.onGateCall(target, args, length),
      print: (level, text) => this.run?.print(level, text),
      interrupt: () =>
        this.run
          ? this.run.shouldInterrupt(limits.evalMs)
          : this.renderDeadline !== 0 && performance.now() > this.renderDeadline,
    };
  }

  static async open(engine: CodeEngine, setup: SandboxSetup): Promise<Sandbox> {
    const lane = await engine.acquire();
    let shell: Shell | undefined;
    try {
      shell = takeShell(lane);
      const { runtime, helpers } = shell;
      runtime.setMaxStackSize(setup.limits.stackBytes);
      lane.reserveStack(setup.limits.stackBytes);
      // A gate function names its gate by an index into `targets`: a number crosses the boundary
      // cheaper than a string.
      const targets = [...setup.gates];
      const aliases: Record<string, number> = {};
      for (const [alias, target] of Object.entries(setup.aliases)) {
        const i = targets.indexOf(target);
        aliases[alias] = i >= 0 ? i : targets.push(target) - 1;
      }
      const sandbox = new Sandbox(engine, shell, setup.limits, targets);
      const { gates, warded } = setup;
      sandbox.call(helpers.install, JSON.stringify({ gates, aliases, warded }));
      runtime.setMemoryLimit(setup.limits.memoryBytes);
      for (const [name, value] of Object.entries(setup.state))
        sandbox.call(helpers.define, name, JSON.stringify(value ?? null));
      return sandbox;
    } catch (err) {
      try {
        shell?.dispose();
      } catch (disposeErr) {
        lane.kill(disposeErr);
      }
      engine.release(lane);
      throw err;
    }
  }

  get alive(): boolean {
    return !this.disposed && !this.lane.dead;
  }

  /** Runs one piece of code to its end, a gate's `stop`, a ward or a cancel. */
  evaluate(code: string, hooks: EvalHooks): Promise<EvalOutput> {
    if (!this.alive) return Promise.resolve(crashOutput());
    return this.lane.exclusive(async () => {
      if (!this.alive) return crashOutput();
      const run = new Run(hooks);
      this.run = run;
      let result: EvalResult;
      try {
        result = await this.shell.context.evalCodeAsync(code, `run-${++this.runs}.js`);
      } catch (err) {
        // A trap of the module itself (never a JS exception of the code): the lane is gone.
        this.lane.kill(err);
        return { ...crashOutput(), console: run.console, consoleDropped: run.consoleDropped };
      } finally {
        this.run = undefined;
      }
      return this.read(result, run);
    });
  }

  dispose(): void {
    if (this.disposed) return;
    if (this.run) {
      this.disposeWhenIdle = true; // never free a context while its evaluation is suspended
      return;
    }
    this.disposed = true;
    this.shell.bridge = undefined;
    if (!this.lane.dead && !this.tainted) {
      try {
        this.shell.dispose();
      } catch (err) {
        // QuickJS asserts on leaked objects by aborting the module: the lane cannot be trusted.
        this.lane.kill(err);
      }
    }
    this.engine.release(this.lane);
  }

  private read(result: EvalResult, run: Run): EvalOutput {
    const { runtime } = this.shell;
    this.renderDeadline = performance.now() + RENDER_MS;
    // Headroom to render an error even when the code used up its memory.
    if (result.error) runtime.setMemoryLimit(this.limits.memoryBytes + RENDER_HEADROOM);
    try {
      const out = this.reader.read(result, run, this.limits.evalMs);
      if (out.error?.message === "out of memory" || out.error?.message === UNRENDERABLE) {
        this.tainted = true;
        this.lane.retiring = true;
      }
      return out;
    } finally {
      if (result.error) runtime.setMemoryLimit(this.limits.memoryBytes);
      this.renderDeadline = 0;
      if (this.disposeWhenIdle) this.dispose();
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

  /** The bridge of every gate function: synchronous inside, a host promise outside (asyncify). */
  private onGateCall(
    targetH: QuickJSHandle,
    argsH: QuickJSHandle | undefined,
    lengthH: QuickJSHandle | undefined,
  ): GateAnswer | Promise<GateAnswer> {
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
    const args = this.gateArguments(argsH, lengthH);
    if (!args) return { error: ctx.newError(`${name}: arguments must be JSON data`) };
    run.inGate = true;
    const started = performance.now();
    let reply: GateReply | Promise<GateReply>;
    try {
      reply = run.hooks.callGate(name, args);
    } catch (err) {
      reply = { ok: false, message: errorMessage(err) };
    }
    // A gate that answers at once is answered without suspending the sandbox (no asyncify unwind).
    if (reply instanceof Promise) return this.awaitGate(run, reply, started);
    run.inGate = false;
    run.pausedMs += performance.now() - started; // max_eval_ms counts the code, not the gates
    return this.answer(run, reply);
  }

  /**
   * A gate call's arguments as the gate function passed them: none, one string (with its length),
   * or a JSON array. A string is copied out as it is, but the copy stops at a NUL and turns an
   * unpaired surrogate into U+FFFD: a copy shorter than the string, or holding U+FFFD, is redone
   * through JSON. Undefined when the JSON does not parse.
   */
  private gateArguments(argsH?: QuickJSHandle, lengthH?: QuickJSHandle): unknown[] | undefined {
    if (!argsH) return [];
    const ctx = this.shell.context;
    try {
      if (!lengthH) return JSON.parse(ctx.getString(argsH)) as unknown[];
      const text = ctx.getString(argsH);
      if (text.length === ctx.getNumber(lengthH) && !text.includes("\uFFFD")) return [text];
      const quoted = ctx.unwrapResult(
        ctx.callFunction(this.shell.helpers.quote, ctx.undefined, argsH),
      );
      return [JSON.parse(quoted.consume((q) => ctx.getString(q))) as unknown];
    } catch {
      return undefined;
    }
  }

  /** A gate that answers later: the sandbox suspends until it does. */
  private async awaitGate(
    run: Run,
    pending: Promise<GateReply>,
    started: number,
  ): Promise<GateAnswer> {
    let reply: GateReply;
    try {
      reply = await pending;
    } catch (err) {
      reply = { ok: false, message: errorMessage(err) };
    }
    run.inGate = false;
    run.pausedMs += performance.now() - started; // max_eval_ms counts the code, not the gates
    return this.answer(run, reply);
  }

  /** A gate's reply as the code sees it: a value, an error it may catch, or the end of its run. */
  private answer(
    run: Run,
    reply: GateReply,
  ): VmCallResult<QuickJSHandle> | QuickJSHandle | undefined {
    const ctx = this.shell.context;
    if (run.hooks.signal.aborted) {
      run.stop ??= "aborted"; // the run ends here; the interrupt makes it uncatchable
      return { error: ctx.newError("cancelled") };
    }
    if (!reply.ok) return { error: ctx.newError(reply.message) };
    if (reply.stop) run.stop = "done";
    return this.toVm(reply.value);
  }

  /** A gate's value inside the sandbox: primitives directly, structured values through JSON. */
  private toVm(value: unknown): QuickJSHandle | undefined {
    const ctx = this.shell.context;
    switch (typeof value) {
      case "undefined":
        return undefined;
      case "number":
        return ctx.newNumber(value);
      case "string":
        return ctx.newString(value);
      case "boolean":
        return value ? ctx.true : ctx.false;
      default: {
        if (value === null) return ctx.null;
        const json = ctx.newString(toJson(value));
        try {
          return ctx.unwrapResult(ctx.callFunction(this.shell.helpers.parse, ctx.undefined, json));
        } finally {
          json.dispose();
        }
      }
    }
  }
}

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}
