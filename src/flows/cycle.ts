/**
 * The receive/send cycle (seed 003 §6): receive hooks → eligible receivers → tape update →
 * eligible senders with send hooks. A FlowRunner owns one tape and runs one cycle at a time.
 */
import { ReceiverCall, SenderCall } from "./call-input.js";
import { toEvent } from "./handler.js";
import type {
  Flow,
  HookRegistration,
  ReceiverRegistration,
  SenderRegistration,
} from "./registry.js";
import { CallContext, invoke, limitFor } from "./invoke.js";
import { messageBytes } from "./limits.js";
import { accepts, type Node } from "./node.js";
import { comparePriority, compareText } from "./priority.js";
import { compatible, gatesOf, isInitial } from "./route.js";
import { isIndexed, Tape, type TapeKey, type TapeValue } from "./tape.js";
import { nextTape, type Fired } from "./tape-update.js";
import type { CycleTrace, DropTrace } from "./trace.js";

export interface Emission {
  route: string;
  key: TapeKey;
  payload: unknown;
}

export interface CycleResult {
  emitted: Emission[];
  trace: CycleTrace;
}

interface Invocation {
  receiver: ReceiverRegistration;
  key: TapeKey;
  state: Node | null;
  stateText: string;
}

export class FlowRunner {
  private tape: Tape;
  /** Senders compatible with each receiver's route, filled as receivers fire. */
  private readonly compat = new Map<ReceiverRegistration, SenderRegistration[]>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly flow: Flow,
    initial: TapeValue | undefined = flow.initialTape,
  ) {
    this.tape = Tape.of(flow.shape, initial);
  }

  /** The tape as its shape writes it. */
  tapeValue(): TapeValue {
    return this.tape.value();
  }

  /** Runs one cycle for an inbound payload; cycles queue, never interleave. */
  cycle(payload: unknown): Promise<CycleResult> {
    const next = this.chain.then(() => this.run(payload));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async run(inbound: unknown): Promise<CycleResult> {
    const trace: CycleTrace = { receivers: [], emissions: [], drops: [], tape: [] };
    const emitted: Emission[] = [];
    const limits = this.flow.limits;
    if (messageBytes(inbound) > limits.maxMessageBytes) {
      trace.dropped = { by: "max_message_bytes" };
      return { emitted, trace };
    }
    const hooked = await this.hooks(this.flow.hooks("receive"), inbound, "receive_hook");
    if ("drop" in hooked) {
      trace.dropped = hooked.drop;
      return { emitted, trace };
    }
    const payload = hooked.payload;
    const fired = await this.receive(payload, trace);
    const next = nextTape(this.tape, fired);
    if (next.size > limits.maxTapeNodes) {
      trace.drops.push({ by: "max_tape_nodes", error: `the tape would hold ${next.size} nodes` });
      return { emitted, trace };
    }
    trace.tape = next.deltaFrom(this.tape);
    this.tape = next;
    await this.send(payload, fired, trace, emitted);
    return { emitted, trace };
  }

  /** Runs hooks in order; the first `null` (or failure) drops the payload (§6.1). */
  private async hooks(
    hooks: readonly HookRegistration[],
    payload: unknown,
    by: "receive_hook" | "send_hook",
  ): Promise<{ payload: unknown } | { drop: DropTrace }> {
    let current = payload;
    for (const hook of hooks) {
      const ctx = new CallContext();
      const value = current;
      let r = invoke(
        () => hook.fn(value, ctx),
        ctx,
        limitFor(hook.fn, this.flow.limits.maxHandlerMs),
      );
      if (r instanceof Promise) r = await r;
      const at = hook.identity.function;
      if (!r.ok) return { drop: { by, at, error: r.error } };
      if (r.value === null || r.value === undefined) return { drop: { by, at } };
      current = r.value;
    }
    return { payload: current };
  }

  /** Eligible receivers (§6.2) in order: priority, route, key, state; each run once. */
  private invocations(): Invocation[] {
    const out: Invocation[] = [];
    const entries = this.tape.entries();
    const entry = isIndexed(this.flow.shape) ? this.flow.entryKey : null;
    for (const receiver of this.flow.receivers()) {
      if (isInitial(receiver.route)) {
        out.push({ receiver, key: entry, state: null, stateText: "" });
        continue;
      }
      const gates = gatesOf(receiver.route);
      for (const e of entries)
        if (gates.some((g) => accepts(g, e.state)))
          out.push({ receiver, key: e.key, state: e.state, stateText: e.text });
    }
    return out.sort(
      (a, b) =>
        comparePriority(a.receiver.priority, b.receiver.priority) ||
        compareText(a.receiver.routeText, b.receiver.routeText) ||
        compareText(a.key ?? "", b.key ?? "") ||
        compareText(a.stateText, b.stateText) ||
        a.receiver.index - b.receiver.index,
    );
  }

  private async receive(payload: unknown, trace: CycleTrace): Promise<Fired[]> {
    const fired: Fired[] = [];
    for (const inv of this.invocations()) {
      const { receiver, key, state } = inv;
      const ctx = new CallContext();
      const input = new ReceiverCall(
        ctx,
        payload,
        key,
        state ? inv.stateText : null,
        receiver.routeText,
      );
      let r = invoke(
        () => receiver.fn(input),
        ctx,
        limitFor(receiver.fn, this.flow.limits.maxHandlerMs),
      );
      if (r instanceof Promise) r = await r;
      const where = { route: receiver.routeText, key, state: input.state };
      const event = r.ok ? toEvent(r.value) : r.error;
      if (typeof event === "string") trace.receivers.push({ ...where, error: event });
      else if (event) {
        trace.receivers.push({ ...where, action: event.action, trigger: event.trigger });
        fired.push({ receiver, key, state, event });
      }
    }
    return fired;
  }

  /** Eligible senders (§6.4) per event in receiver order, senders by priority, route, registration. */
  private async send(
    payload: unknown,
    fired: readonly Fired[],
    trace: CycleTrace,
    out: Emission[],
  ) {
    const once = new Set<string>();
    for (const f of fired) {
      for (const sender of this.sendersFor(f.receiver)) {
        if (sender.actions && !sender.actions.includes(f.event.action)) continue;
        if (sender.triggers && !sender.triggers.includes(f.event.trigger)) continue;
        const slot = `${sender.index}\u0000${f.key ?? ""}`;
        if (!sender.multi && once.has(slot)) continue;
        once.add(slot);
        const ctx = new CallContext();
        const input = new SenderCall(ctx, payload, f.key, f.event, f.receiver.routeText);
        let r = invoke(
          () => sender.fn(input),
          ctx,
          limitFor(sender.fn, this.flow.limits.maxHandlerMs),
        );
        if (r instanceof Promise) r = await r;
        if (!r.ok) {
          trace.drops.push({
            by: "sender_error",
            at: sender.routeText,
            key: f.key,
            error: r.error,
          });
          continue;
        }
        if (r.value === null || r.value === undefined) continue;
        await this.emit(sender, f.key, r.value, trace, out);
      }
    }
  }

  private async emit(
    sender: SenderRegistration,
    key: TapeKey,
    value: unknown,
    trace: CycleTrace,
    out: Emission[],
  ) {
    const hooked = await this.hooks(this.flow.hooks("send"), value, "send_hook");
    if ("drop" in hooked) {
      trace.drops.push({ ...hooked.drop, key });
      return;
    }
    if (messageBytes(hooked.payload) > this.flow.limits.maxMessageBytes) {
      trace.drops.push({ by: "max_message_bytes", at: sender.routeText, key });
      return;
    }
    const emission = { route: sender.routeText, key, payload: hooked.payload };
    trace.emissions.push(emission);
    out.push(emission);
  }

  /** The senders whose route is compatible with a receiver's (§6.4), in order; made once per receiver. */
  private sendersFor(receiver: ReceiverRegistration): readonly SenderRegistration[] {
    let list = this.compat.get(receiver);
    if (!list) {
      list = this.flow.senders().filter((s) => compatible(s.route, receiver.route));
      this.compat.set(receiver, list);
    }
    return list;
  }
}
