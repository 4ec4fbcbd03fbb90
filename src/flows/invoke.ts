/**
 * Calls one handler with the flow's time limit. A handler that answers at once is not awaited
 * (the bare cycle stays fast); one that returns a promise races max_handler_ms and is aborted
 * through its signal when it loses. A synchronous handler cannot be interrupted by the host:
 * the sandbox interrupts js handlers itself (FLOWS.md "Limits").
 */
import { errorMessage } from "../core/errors.js";

export type Invoked = { ok: true; value: unknown } | { ok: false; error: string };

/** A handler's context whose signal is made only when a handler asks for it. */
export class CallContext {
  private controller: AbortController | undefined;
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }
  abort(reason: string): void {
    this.controller?.abort(reason);
  }
}

/**
 * Handlers that bound their own run time: a `js:` handler's sandbox stops its compute at
 * max_handler_ms (and its worker is ended if it does not stop), so no wall-clock race is put
 * around it — the race would name the limit less precisely, and win or lose by scheduling.
 */
export const selfTimed = new WeakSet<object>();

/** The wall-clock limit to hold a handler to: none for a self-timed one. */
export const limitFor = (fn: object, maxMs: number): number | undefined =>
  selfTimed.has(fn) ? undefined : maxMs;

export function invoke(
  call: () => unknown,
  ctx: CallContext,
  maxMs: number | undefined,
): Invoked | Promise<Invoked> {
  let value: unknown;
  try {
    value = call();
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
  if (!(value instanceof Promise)) return { ok: true, value };
  if (maxMs === undefined)
    return value.then(
      (v): Invoked => ({ ok: true, value: v }),
      (err: unknown): Invoked => ({ ok: false, error: errorMessage(err) }),
    );
  return race(value, ctx, maxMs);
}

async function race(pending: Promise<unknown>, ctx: CallContext, maxMs: number): Promise<Invoked> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Invoked>((resolve) => {
    timer = setTimeout(() => {
      const error = `the handler exceeded max_handler_ms (${maxMs} ms)`;
      ctx.abort(error);
      resolve({ ok: false, error });
    }, maxMs);
  });
  try {
    return await Promise.race([
      pending.then(
        (value): Invoked => ({ ok: true, value }),
        (err: unknown): Invoked => ({ ok: false, error: errorMessage(err) }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
