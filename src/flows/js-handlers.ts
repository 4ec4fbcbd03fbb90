/**
 * `js:` handlers of a flow, run in the code medium's QuickJS sandbox (MEDIUM-2 isolation) with
 * its limits: max_handler_ms interrupts a handler's compute, the heap is capped. One sandbox per
 * flow holds every handler as a function; each call crosses the boundary through two gates,
 * `__in` (the handler's arguments) and `__out` (its return value), both answered synchronously.
 */
import { createHash } from "node:crypto";
import { openSandbox, sandboxLimits, type EvalOutput, type Sandbox } from "../sandbox/index.js";
import { selfTimed } from "./invoke.js";
import type {
  FlowEvent,
  HandlerContext,
  HookFn,
  ReceiverFn,
  ReceiverInput,
  SenderFn,
  SenderInput,
} from "./handler.js";

export type JsRole = "receiver" | "sender" | "hook";

const PARAMS: Record<JsRole, string> = {
  receiver: "payload, key, state, route",
  sender: "payload, key, event, route",
  hook: "payload",
};

/** The helpers every handler sees: move/stay/test build events. */
const HELPERS = `
globalThis.__h = [];
const __ev = (action) => (trigger) => ({ action, trigger: trigger === undefined ? null : trigger });
globalThis.__fn = (params, src) => {
  try { return new Function(params, "return (" + src + "\\n);"); } catch (e) { return new Function(params, src); }
};
globalThis.move = __ev("MOVE"); globalThis.stay = __ev("STAY"); globalThis.test = __ev("TEST");
`;

export const jsDigest = (source: string) =>
  "sha256:" + createHash("sha256").update(source).digest("hex").slice(0, 16);

export class JsHandlers {
  private input: unknown[] = [];
  private output: unknown;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sources: string[] = [];
  private defined = 0;

  private constructor(
    private readonly sandbox: Sandbox,
    private readonly maxMs: number,
  ) {}

  /** A sandbox whose handler runs are interrupted past `maxHandlerMs` of compute. */
  static async open(maxHandlerMs: number, memoryMb = 64): Promise<JsHandlers> {
    const limits = sandboxLimits({ max_eval_ms: maxHandlerMs, max_memory_mb: memoryMb });
    const sandbox = await openSandbox({
      gates: ["__in", "__out"],
      aliases: {},
      warded: {},
      state: {},
      limits,
    });
    const host = new JsHandlers(sandbox, maxHandlerMs);
    await host.evaluate(HELPERS);
    return host;
  }

  /** Adds a handler: one expression, or statements that `return`; returns its function. */
  add(role: "receiver", source: string): ReceiverFn;
  add(role: "sender", source: string): SenderFn;
  add(role: "hook", source: string): HookFn;
  add(role: JsRole, source: string): ReceiverFn | SenderFn | HookFn;
  add(role: JsRole, source: string): ReceiverFn | SenderFn | HookFn {
    const id =
      this.sources.push(`__fn(${JSON.stringify(PARAMS[role])}, ${JSON.stringify(source)})`) - 1;
    const fn =
      role === "receiver"
        ? // The cycle checks what comes back is an event (toEvent): a handler may return anything.
          (i: ReceiverInput) =>
            this.call(id, [i.payload, i.key, i.state, i.route], i) as Promise<FlowEvent | null>
        : role === "sender"
          ? (i: SenderInput) => this.call(id, [i.payload, i.key, i.event, i.route], i)
          : (payload: unknown, ctx: HandlerContext) => this.call(id, [payload], ctx);
    selfTimed.add(fn); // the sandbox holds it to max_handler_ms of compute
    return fn;
  }

  /** Checks every handler compiles; the first syntax error is thrown with its handler's index. */
  async compile(): Promise<void> {
    await this.define();
  }

  dispose(): void {
    this.sandbox.dispose();
  }

  private call(id: number, args: unknown[], ctx: HandlerContext): Promise<unknown> {
    const run = this.queue.then(async () => {
      await this.define();
      this.input = args;
      this.output = undefined;
      await this.evaluate(`__out(__h[${id}].apply(undefined, __in()))`, ctx.signal);
      return this.output;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Defines the handlers added since the last call, each as its own script. */
  private async define(): Promise<void> {
    while (this.defined < this.sources.length) {
      const id = this.defined++;
      await this.evaluate(`__h[${id}] = ${this.sources[id]!};`).catch((err: unknown) => {
        throw new Error(`js handler ${id}: ${(err as Error).message}`);
      });
    }
  }

  private async evaluate(code: string, signal = new AbortController().signal): Promise<void> {
    const out: EvalOutput = await this.sandbox.evaluate(code, {
      signal,
      callGate: (name, args) => {
        if (name === "__in") return { ok: true, value: this.input };
        this.output = args[0];
        return { ok: true, value: undefined };
      },
    });
    // The sandbox names its own ward; a flow's handler is bounded by max_handler_ms.
    if (out.stopped === "max_eval_ms")
      throw new Error(`the handler exceeded max_handler_ms (${this.maxMs} ms of compute)`);
    if (out.error) throw new Error(`${out.error.name}: ${out.error.message}`);
  }
}
