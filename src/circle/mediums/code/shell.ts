import type {
  AsyncFunctionImplementation,
  QuickJSAsyncContext,
  QuickJSAsyncRuntime,
  QuickJSHandle,
  VmCallResult,
} from "quickjs-emscripten";
import type { Lane } from "./lane.js";
import { PRELUDE } from "./prelude.js";

/**
 * What a gate function returns inside the sandbox: a value (undefined for none) or an error to
 * throw. Given synchronously, the sandbox runs on; given as a promise, it suspends until then.
 */
export type GateAnswer = VmCallResult<QuickJSHandle> | QuickJSHandle | undefined;

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
  ): GateAnswer | Promise<GateAnswer>;
  print(level: string, text: string): void;
  interrupt(): boolean;
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

  private constructor(
    readonly lane: Lane<Shell>,
    readonly runtime: QuickJSAsyncRuntime,
    readonly context: QuickJSAsyncContext,
  ) {
    runtime.setInterruptHandler(() => this.bridge?.interrupt() ?? false);
    this.helpers = this.evaluatePrelude();
  }

  static create(lane: Lane<Shell>): Shell {
    const runtime = lane.module.newRuntime();
    let context: QuickJSAsyncContext | undefined;
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
    const hostCall = ctx.newAsyncifiedFunction("hostCall", ((
      target: QuickJSHandle,
      args: QuickJSHandle | undefined,
      length: QuickJSHandle | undefined,
    ) =>
      this.bridge
        ? this.bridge.call(target, args, length)
        : unavailable()) as unknown as AsyncFunctionImplementation);
    const hostPrint = ctx.newFunction("hostPrint", (level, text) =>
      this.bridge?.print(ctx.getString(level), ctx.getString(text)),
    );
    try {
      const factory = ctx.unwrapResult(ctx.evalCode(PRELUDE, "prelude.js"));
      const helpers = factory.consume((f) =>
        ctx.unwrapResult(ctx.callFunction(f, ctx.undefined, hostCall, hostPrint)),
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
    }
  }
}

/** A shell for a new sandbox in `lane`: its spare if it has one (then a new spare is made when idle). */
export function takeShell(lane: Lane<Shell>): Shell {
  const spare = lane.spare;
  lane.spare = undefined;
  const shell = spare ?? Shell.create(lane);
  scheduleSpare(lane);
  return shell;
}

function scheduleSpare(lane: Lane<Shell>): void {
  if (lane.spareScheduled) return;
  lane.spareScheduled = true;
  setImmediate(() => {
    lane.spareScheduled = false;
    if (lane.dead || lane.retiring || lane.spare) return;
    try {
      lane.spare = Shell.create(lane);
    } catch {
      // no spare: the next sandbox builds its shell when it needs it
    }
  });
}
