import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
  VmCallResult,
} from "quickjs-emscripten";
import { InterruptPace } from "./interrupt-pace.js";
import type { LaneMemory } from "./lane-memory.js";
import { PRELUDE } from "./prelude.js";

/**
 * What a gate function returns inside the sandbox: a value (undefined for none) or an error to
 * throw. Always synchronous: the lane's worker waits for the main thread's answer (lane-host.ts).
 */
export type GateAnswer = VmCallResult<QuickJSHandle> | QuickJSHandle | undefined;

/** What a shell needs of its lane (the worker's module instance). */
export interface ShellLane {
  readonly module: QuickJSWASMModule;
  readonly memory: LaneMemory;
  readonly counterOffset: number | undefined;
}

/** Where a shell's host functions and interrupt checks go once an entity owns it. */
export interface Bridge {
  /**
   * A gate call: the gate's index, then its arguments — none, one string and its length, or a
   * JSON array.
   */
  call(
    target: QuickJSHandle,
    args: QuickJSHandle | undefined,
    length: QuickJSHandle | undefined,
  ): GateAnswer;
  print(level: string, text: string): void;
  interrupt(): boolean;
  /**
   * LOOM-11: the entity's turns after the first `known` ones and its fold, as JSON text; nothing
   * when this run already read them (the prelude keeps what it was given).
   */
  loom(known: number): GateAnswer;
}

export interface Helpers {
  install: QuickJSHandle;
  describe: QuickJSHandle;
  describeError: QuickJSHandle;
  define: QuickJSHandle;
  /** JSON.parse as it was before the entity's code ran. */
  parse: QuickJSHandle;
  /** A string as JSON text (JSON.stringify as it was before the entity's code ran). */
  quote: QuickJSHandle;
}

/**
 * A runtime and context with the prelude evaluated: everything of a sandbox that does not
 * depend on the circle. Building one costs ~2 ms (most of it QuickJS's intrinsics), so each lane
 * keeps one spare ready and an entity's first turn does not pay for it.
 */
export class Shell {
  bridge: Bridge | undefined;
  readonly helpers: Helpers;
  /** How often QuickJS asks whether to stop (max_eval_ms); absent when the offset is unknown. */
  readonly pace: InterruptPace | undefined;

  private constructor(
    readonly lane: ShellLane,
    readonly runtime: QuickJSRuntime,
    readonly context: QuickJSContext,
  ) {
    const ctxPtr = (context as unknown as { ctx: { value: number } }).ctx.value;
    const offset = lane.counterOffset;
    this.pace =
      offset === undefined
        ? undefined
        : new InterruptPace(lane.memory.memory, (ctxPtr + offset) >> 2);
    runtime.setInterruptHandler(() => {
      if (!this.bridge) return false;
      this.pace?.tick();
      return this.bridge.interrupt();
    });
    this.helpers = this.evaluatePrelude();
  }

  static create(lane: ShellLane): Shell {
    const runtime = lane.module.newRuntime();
    let context: QuickJSContext | undefined;
    try {
      context = runtime.newContext();
      return new Shell(lane, runtime, context);
    } catch (err) {
      context?.dispose();
      runtime.dispose();
      throw err;
    }
  }

  /** Frees every handle, the context and the runtime. Throws if QuickJS finds a leak. */
  dispose(): void {
    const { install, describe, describeError, define, parse, quote } = this.helpers;
    for (const h of [install, describe, describeError, define, parse, quote]) h.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }

  private evaluatePrelude(): Helpers {
    const ctx = this.context;
    const unavailable = (): VmCallResult<QuickJSHandle> => ({
      error: ctx.newError("this sandbox is not attached to an entity"),
    });
    const hostCall = ctx.newFunction(
      "hostCall",
      (target: QuickJSHandle, args?: QuickJSHandle, length?: QuickJSHandle) =>
        this.bridge ? this.bridge.call(target, args, length) : unavailable(),
    );
    const hostPrint = ctx.newFunction("hostPrint", (level, text) =>
      this.bridge?.print(ctx.getString(level), ctx.getString(text)),
    );
    const hostLoom = ctx.newFunction("hostLoom", (known: QuickJSHandle) =>
      this.bridge ? this.bridge.loom(ctx.getNumber(known)) : unavailable(),
    );
    try {
      const factory = ctx.unwrapResult(ctx.evalCode(PRELUDE, "prelude.js"));
      const helpers = factory.consume((f) =>
        ctx.unwrapResult(ctx.callFunction(f, ctx.undefined, hostCall, hostPrint, hostLoom)),
      );
      return helpers.consume((h) => ({
        install: ctx.getProp(h, "install"),
        describe: ctx.getProp(h, "describe"),
        describeError: ctx.getProp(h, "describeError"),
        parse: ctx.getProp(h, "parse"),
        define: ctx.getProp(h, "define"),
        quote: ctx.getProp(h, "quote"),
      }));
    } finally {
      hostCall.dispose();
      hostPrint.dispose();
      hostLoom.dispose();
    }
  }
}

/** A lane that keeps a spare shell ready. */
export interface SpareLane extends ShellLane {
  spare: Shell | undefined;
  spareScheduled: boolean;
  /** No spare is made for a lane that takes no new sandboxes. */
  readonly closed: boolean;
}

/** A shell for a new sandbox in `lane`: its spare if it has one (then a new spare is made when idle). */
export function takeShell(lane: SpareLane): Shell {
  const spare = lane.spare;
  lane.spare = undefined;
  const shell = spare ?? Shell.create(lane);
  scheduleSpare(lane);
  return shell;
}

function scheduleSpare(lane: SpareLane): void {
  if (lane.spareScheduled) return;
  lane.spareScheduled = true;
  setImmediate(() => {
    lane.spareScheduled = false;
    if (lane.closed || lane.spare) return;
    try {
      lane.spare = Shell.create(lane);
    } catch {
      // no spare: the next sandbox builds its shell when it needs it
    }
  });
}
