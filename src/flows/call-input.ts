/**
 * What a handler is handed (seed 003 §5): the payload, its tape key and state or event, the
 * route text, and a signal made only when the handler asks (the bare cycle never pays for it).
 */
import type { FlowEvent, ReceiverInput, SenderInput } from "./handler.js";
import type { CallContext } from "./invoke.js";
import type { TapeKey } from "./tape.js";

/** A handler's input; its signal is made only when the handler asks. */
class CallInput {
  constructor(private readonly ctx: CallContext) {}
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}

export class ReceiverCall extends CallInput implements ReceiverInput {
  constructor(
    ctx: CallContext,
    readonly payload: unknown,
    readonly key: TapeKey,
    readonly state: string | null,
    readonly route: string,
  ) {
    super(ctx);
  }
}

export class SenderCall extends CallInput implements SenderInput {
  constructor(
    ctx: CallContext,
    readonly payload: unknown,
    readonly key: TapeKey,
    readonly event: FlowEvent,
    readonly route: string,
  ) {
    super(ctx);
  }
}
