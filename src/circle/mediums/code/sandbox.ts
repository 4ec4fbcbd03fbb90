import type { QuickJSAsyncContext, QuickJSHandle, VmCallResult } from "quickjs-emscripten";
import type { CodeEngine } from "./engine.js";
import type { Lane } from "./lane.js";
import type { SandboxLimits } from "./limits.js";
import { takeShell, type Helpers, type Shell } from "./shell.js";

type EvalResult = Awaited<ReturnType<QuickJSAsyncContext["evalCodeAsync"]>>;

/** What the code's gate call resolved to; `stop` ends the run (done — LOOP-3). */
export type GateReply =
  { ok: true; value: unknown; stop?: boolean } | { ok: false; message: string };

export interface EvalHooks {
  /** Runs one gate call of the code, with the arguments as the code passed them. */
  callGate(name: string, args: unknown[]): Promise<GateReply>;
  /** Aborts a running evaluation (a ward of the cast, a terminated parent — COMP-9). */
  signal: AbortSignal;
}

/** A value as the viewport shows it: type, size, and its text (cut at `PREVIEW_CHARS`). */
export interface ValueView {
  type: string;
  size?: number;
  /** Length of the full text representation. */
  chars: number;
  text: string;
}

export interface ErrorView {
  name: string;
  message: string;
  stack: string;
}

export interface EvalOutput {
  console: string;
  /** Console characters dropped past the cap. */
  consoleDropped: number;
  /** The value of the last expression (absent when undefined or when the run failed). */
  value?: ValueView;
  error?: ErrorView;
  /** Why the run stopped early: done was called, a ward, a cancel. */
  stopped?: "done" | "max_eval_ms" | "aborted";
  /** The module trapped: this sandbox and its state are gone. */
  crashed?: boolean;
}

export interface SandboxSetup {
  gates: readonly string[];
  /** Other names for gates (submit_answer → done). */
  aliases: Readonly<Record<string, string>>;
  /** Names that throw a fixed message (delegation gates warded off at depth 0 — COMP-6). */
  warded: Readonly<Record<string, string>>;
  /** Data injected as variables (circle.state, a child's context). */
  state: Readonly<Record<string, unknown>>;
  limits: SandboxLimits;
}

const PREVIEW_CHARS = 2000;
const CONSOLE_CAP = 64 * 1024;
/** Compute budget for rendering the result after the run (getters, toJSON of the entity's values). */
const RENDER_MS = 250;
const RENDER_HEADROOM = 2 * 1024 * 1024;
const UNRENDERABLE = "[the error could not be rendered]";

interface Turn {
  readonly hooks: EvalHooks;
  readonly startedAt: number;
  pausedMs: number;
  inGate: boolean;
  stop: EvalOutput["stopped"];
  console: string;
  consoleDropped: number;
}

/**
 * One entity's sandbox: its own QuickJS runtime and context in a lane of the shared module.
 * Variables persist across evaluations (MEDIUM-3). Nothing of the host is reachable from inside
 * but the gate functions and console (MEDIUM-2 isolation); every handle is disposed.
 */
export class Sandbox {
  private turn: Turn | undefined;
  private renderDeadline = 0;
  private runs = 0;
  private disposed = false;
  private disposeWhenIdle = false;
  /** Ran out of memory: its runtime may hold leaked objects and must not be freed (see Lane.retiring). */
  private tainted = false;
  private readonly context: QuickJSAsyncContext;
  private readonly helpers: Helpers;
  readonly lane: Lane;

  private constructor(
    private readonly engine: CodeEngine,
    private readonly shell: Shell,
    private readonly limits: SandboxLimits,
  ) {
    this.lane = shell.lane;
    this.context = shell.context;
    this.helpers = shell.helpers;
    shell.bridge = {
      call: (name, args) => this.onGateCall(name, args),
      print: (level, text) => this.onPrint(level, text),
      interrupt: () => this.shouldInterrupt(),
    };
  }

  static async open(engine: CodeEngine, setup: SandboxSetup): Promise<Sandbox> {
    const lane = await engine.acquire();
    let shell: Shell | undefined;
    try {
      shell = takeShell(lane);
      const { runtime } = shell;
      runtime.setMaxStackSize(setup.limits.stackBytes);
      lane.reserveStack(setup.limits.stackBytes);
      const sandbox = new Sandbox(engine, shell, setup.limits);
      sandbox.call(
        shell.helpers.install,
        JSON.stringify({ gates: setup.gates, aliases: setup.aliases, warded: setup.warded }),
      );
      runtime.setMemoryLimit(setup.limits.memoryBytes);
      for (const [name, value] of Object.entries(setup.state))
        sandbox.call(shell.helpers.define, name, JSON.stringify(value ?? null));
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
      const turn: Turn = {
        hooks,
        startedAt: performance.now(),
        pausedMs: 0,
        inGate: false,
        stop: undefined,
        console: "",
        consoleDropped: 0,
      };
      this.turn = turn;
      let result: EvalResult;
      try {
        result = await this.context.evalCodeAsync(code, `run-${++this.runs}.js`);
      } catch (err) {
        // A trap of the module itself (never a JS exception of the code): the lane is gone.
        this.turn = undefined;
        this.lane.kill(err);
        return { ...crashOutput(), console: turn.console, consoleDropped: turn.consoleDropped };
      } finally {
        this.turn = undefined;
      }
      this.renderDeadline = performance.now() + RENDER_MS;
      // Headroom to render the outcome even when the code used up its memory.
      this.shell.runtime.setMemoryLimit(this.limits.memoryBytes + RENDER_HEADROOM);
      try {
        const out = this.collect(result, turn);
        if (out.error?.message === "out of memory" || out.error?.message === UNRENDERABLE) {
          this.tainted = true;
          this.lane.retiring = true;
        }
        return out;
      } finally {
        this.shell.runtime.setMemoryLimit(this.limits.memoryBytes);
        this.renderDeadline = 0;
        if (this.disposeWhenIdle) this.dispose();
      }
    });
  }

  dispose(): void {
    if (this.disposed) return;
    if (this.turn) {
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

  /** Calls a prelude helper with string arguments; a failure is thrown as a host error. */
  private call(fn: QuickJSHandle, ...args: string[]): void {
    const ctx = this.context;
    const handles = args.map((a) => ctx.newString(a));
    try {
      const r = ctx.callFunction(fn, ctx.undefined, ...handles);
      if (r.error) {
        const view = this.errorView(r.error);
        throw new Error(`${view.name}: ${view.message}`);
      }
      r.value.dispose();
    } finally {
      for (const h of handles) h.dispose();
    }
  }

  /** The bridge of every gate function: synchronous inside, a host promise outside (asyncify). */
  private onGateCall(
    nameH: QuickJSHandle,
    argsH: QuickJSHandle,
  ):
    VmCallResult<QuickJSHandle> | Promise<VmCallResult<QuickJSHandle> | QuickJSHandle | undefined> {
    const ctx = this.context;
    const turn = this.turn;
    // Only the running code may cross the boundary: not a getter run while rendering a result,
    // not a promise job after the run, not a toJSON while a gate is already pending.
    if (!turn || turn.inGate) {
      return {
        error: ctx.newError(
          "gates can only be called by the running code, one at a time (not from promise callbacks, getters or toJSON)",
        ),
      };
    }
    if (turn.stop) return { error: ctx.newError(`skipped: the run is stopping (${turn.stop})`) };
    const name = ctx.getString(nameH);
    let args: unknown[];
    try {
      args = JSON.parse(ctx.getString(argsH)) as unknown[];
    } catch {
      return { error: ctx.newError(`${name}: arguments must be JSON data`) };
    }
    turn.inGate = true;
    const paused = performance.now();
    return turn.hooks
      .callGate(name, args)
      .catch((err: unknown): GateReply => ({
        ok: false,
        message: err instanceof Error ? err.message : String(err),
      }))
      .then((reply) => {
        turn.inGate = false;
        turn.pausedMs += performance.now() - paused; // max_eval_ms counts the code, not the gates
        if (turn.hooks.signal.aborted) {
          turn.stop ??= "aborted"; // the run ends here; the interrupt makes it uncatchable
          return { error: ctx.newError("cancelled") };
        }
        if (!reply.ok) return { error: ctx.newError(reply.message) };
        if (reply.stop) turn.stop = "done";
        return reply.value === undefined ? undefined : ctx.newString(toJson(reply.value));
      });
  }

  private onPrint(level: string, text: string): void {
    const turn = this.turn;
    if (!turn) return;
    const line = (level === "log" || level === "info" ? "" : `[${level}] `) + text + "\n";
    const room = CONSOLE_CAP - turn.console.length;
    if (room <= 0) turn.consoleDropped += line.length;
    else {
      turn.console += line.slice(0, room);
      turn.consoleDropped += Math.max(0, line.length - room);
    }
  }

  private shouldInterrupt(): boolean {
    const turn = this.turn;
    if (!turn) return this.renderDeadline !== 0 && performance.now() > this.renderDeadline;
    if (turn.stop) return true;
    if (turn.hooks.signal.aborted) {
      turn.stop = "aborted";
      return true;
    }
    if (!turn.inGate && performance.now() - turn.startedAt - turn.pausedMs > this.limits.evalMs) {
      turn.stop = "max_eval_ms"; // WARD-2: the runtime interrupts, the entity cannot opt out
      return true;
    }
    return false;
  }

  private collect(result: EvalResult, turn: Turn): EvalOutput {
    const out: EvalOutput = { console: turn.console, consoleDropped: turn.consoleDropped };
    if (turn.stop) out.stopped = turn.stop;
    if (result.error) {
      if (turn.stop === "done")
        result.error.dispose(); // the uncatchable interrupt that ends a run after done
      else if (turn.stop) {
        result.error.dispose();
        out.error = interruption(turn.stop, this.limits.evalMs, turn.hooks.signal.reason);
      } else out.error = this.errorView(result.error);
      this.drainJobs(out);
      return out;
    }
    const value = this.settle(result.value, out);
    try {
      if (value && turn.stop !== "done" && this.context.typeof(value) !== "undefined")
        out.value = this.valueView(value);
    } finally {
      value?.dispose();
    }
    return out;
  }

  /** Runs promise jobs the code queued; a promise as the last value shows its outcome. */
  private settle(value: QuickJSHandle, out: EvalOutput): QuickJSHandle | undefined {
    this.drainJobs(out);
    const state = this.context.getPromiseState(value);
    if (state.type === "fulfilled" && state.notAPromise) return value;
    value.dispose();
    if (state.type === "fulfilled") return state.value;
    if (state.type === "rejected") {
      out.error = this.errorView(state.error);
      return undefined;
    }
    out.value = { type: "Promise", chars: 17, text: "Promise <pending>" };
    return undefined;
  }

  private drainJobs(out: EvalOutput): void {
    if (!this.shell.runtime.hasPendingJob()) return;
    const jobs = this.shell.runtime.executePendingJobs();
    if (jobs.error) {
      const view = this.errorView(jobs.error);
      out.console += `[error in a promise callback] ${view.name}: ${view.message}\n`;
    }
  }

  private valueView(handle: QuickJSHandle): ValueView {
    const ctx = this.context;
    const limit = ctx.newNumber(PREVIEW_CHARS);
    const r = ctx.callFunction(this.helpers.describe, ctx.undefined, handle, limit);
    limit.dispose();
    if (r.error) {
      r.error.dispose();
      return { type: "unknown", chars: 0, text: "[the value could not be rendered]" };
    }
    return JSON.parse(r.value.consume((v) => ctx.getString(v))) as ValueView;
  }

  private errorView(handle: QuickJSHandle): ErrorView {
    const ctx = this.context;
    const r = ctx.callFunction(this.helpers.describeError, ctx.undefined, handle);
    handle.dispose();
    if (r.error) {
      r.error.dispose();
      return { name: "Error", message: UNRENDERABLE, stack: "" };
    }
    return JSON.parse(r.value.consume((v) => ctx.getString(v))) as ErrorView;
  }
}

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}

function interruption(stop: "max_eval_ms" | "aborted", evalMs: number, reason: unknown): ErrorView {
  if (stop === "max_eval_ms") {
    return {
      name: "TimeoutError",
      message: `the run exceeded max_eval_ms (${evalMs} ms of compute) and was interrupted; the sandbox is still usable and keeps the state it had when it stopped`,
      stack: "",
    };
  }
  return {
    name: "CancelledError",
    message: `the run was cancelled (${typeof reason === "string" ? reason : "aborted"})`,
    stack: "",
  };
}

function crashOutput(): EvalOutput {
  return {
    console: "",
    consoleDropped: 0,
    crashed: true,
    error: {
      name: "SandboxCrashed",
      message:
        "the sandbox crashed and its variables are lost; the next run starts in a fresh sandbox (circle state is injected again)",
      stack: "",
    },
  };
}
