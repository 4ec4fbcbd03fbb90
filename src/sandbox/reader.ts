import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import type { EvalOutput, ErrorView, Run, ValueView } from "./run.js";
import type { Shell } from "./shell.js";

export type EvalResult = Awaited<ReturnType<QuickJSContext["evalCode"]>>;

const PREVIEW_CHARS = 2000;
export const UNRENDERABLE = "[the error could not be rendered]";

/**
 * Turns what a run left behind — a value or an error handle, queued promise jobs — into the
 * output the observation is made of. Runs the prelude's describe helpers inside the sandbox:
 * only strings come out. Disposes every handle it is given.
 */
export class RunReader {
  private readonly context: QuickJSContext;

  constructor(private readonly shell: Shell) {
    this.context = shell.context;
  }

  read(result: EvalResult, run: Run, evalMs: number): EvalOutput {
    const out: EvalOutput = { console: run.console, consoleDropped: run.consoleDropped };
    if (run.stop) out.stopped = run.stop;
    if (result.error) {
      if (run.stop === "done")
        result.error.dispose(); // the uncatchable interrupt that ends a run after done
      else if (run.stop) {
        result.error.dispose();
        out.error = run.interruption(evalMs);
      } else out.error = this.errorView(result.error);
      this.drainJobs(out);
      return out;
    }
    this.drainJobs(out);
    // Only an object can be a promise: primitives skip the promise check (the common case).
    const type = this.context.typeof(result.value);
    const value = type === "object" ? this.settle(result.value, out) : result.value;
    try {
      if (value && run.stop !== "done") {
        // A settled promise's value is another handle, of its own type.
        const view = this.valueView(value, value === result.value ? type : undefined);
        if (view) out.value = view;
      }
    } finally {
      value?.dispose();
    }
    return out;
  }

  errorView(handle: QuickJSHandle): ErrorView {
    const ctx = this.context;
    const r = ctx.callFunction(this.shell.helpers.describeError, ctx.undefined, handle);
    handle.dispose();
    if (r.error) {
      r.error.dispose();
      return { name: "Error", message: UNRENDERABLE, stack: "" };
    }
    return JSON.parse(r.value.consume((v) => ctx.getString(v))) as ErrorView;
  }

  /** A promise as the last value shows its outcome (after the queued jobs ran). */
  private settle(value: QuickJSHandle, out: EvalOutput): QuickJSHandle | undefined {
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
    const { runtime } = this.shell;
    if (!runtime.hasPendingJob()) return;
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const view = this.errorView(jobs.error);
      out.console += `[error in a promise callback] ${view.name}: ${view.message}\n`;
    }
  }

  /** The value for the viewport; undefined shows nothing. Primitives are read without a VM call. */
  private valueView(handle: QuickJSHandle, known?: string): ValueView | undefined {
    const ctx = this.context;
    const type = known ?? ctx.typeof(handle);
    if (type === "undefined") return undefined;
    if (type === "number") {
      const text = String(ctx.getNumber(handle));
      return { type, chars: text.length, text };
    }
    if (type === "string") {
      const value = ctx.getString(handle);
      const text = JSON.stringify(
        value.length > PREVIEW_CHARS ? value.slice(0, PREVIEW_CHARS) : value,
      );
      return { type, size: value.length, chars: value.length + 2, text };
    }
    const limit = ctx.newNumber(PREVIEW_CHARS);
    const r = ctx.callFunction(this.shell.helpers.describe, ctx.undefined, handle, limit);
    limit.dispose();
    if (r.error) {
      r.error.dispose();
      return { type: "unknown", chars: 0, text: "[the value could not be rendered]" };
    }
    return JSON.parse(r.value.consume((v) => ctx.getString(v))) as ValueView;
  }
}
