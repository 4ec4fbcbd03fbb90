/**
 * A flow: the registrations of one agent — receivers, senders and hooks on routes — and the
 * order they run in. The TypeScript API; the `kind: flow` document is one client of it.
 */
import { ConfigError } from "../core/errors.js";
import type { HandlerIdentity, HookFn, ReceiverFn, SenderFn } from "./handler.js";
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from "./limits.js";
import { parseRoute } from "./parse.js";
import { comparePriority, compareText, type Priority } from "./priority.js";
import { ACTIONS, routeText, type Action, type Route } from "./route.js";
import { Tape, type TapeShape, type TapeValue } from "./tape.js";

interface Registered {
  priority: Priority;
  identity: HandlerIdentity;
  /** Registration order: the last tie-breaker. */
  index: number;
}

export interface ReceiverRegistration extends Registered {
  kind: "receiver";
  route: Route;
  routeText: string;
  fn: ReceiverFn;
}

export interface SenderRegistration extends Registered {
  kind: "sender";
  route: Route;
  routeText: string;
  fn: SenderFn;
  /** Absent: any action. */
  actions: readonly Action[] | undefined;
  /** Absent: any trigger. */
  triggers: readonly (string | null)[] | undefined;
  multi: boolean;
}

export interface HookRegistration extends Registered {
  kind: "hook";
  direction: "receive" | "send";
  fn: HookFn;
}

export type Registration = ReceiverRegistration | SenderRegistration | HookRegistration;

export interface RegisterOptions {
  priority?: Priority;
  identity?: Partial<HandlerIdentity>;
}

export interface SenderOptions extends RegisterOptions {
  actions?: readonly Action[];
  triggers?: readonly (string | null)[];
  multi?: boolean;
}

export interface FlowOptions {
  name?: string;
  tape?: { shape?: TapeShape; initial?: TapeValue; entryKey?: string };
  limits?: Partial<FlowLimits>;
}

const byOrder = (a: Registered & { routeText?: string }, b: Registered & { routeText?: string }) =>
  comparePriority(a.priority, b.priority) ||
  compareText(a.routeText ?? "", b.routeText ?? "") ||
  a.index - b.index;

export class Flow {
  readonly name: string;
  readonly shape: TapeShape;
  readonly initialTape: TapeValue | undefined;
  /** The tape key an initial route's activations go to on an indexed tape (FLOWS.md). */
  readonly entryKey: string;
  readonly limits: FlowLimits;
  private readonly all: Registration[] = [];
  private sorted: Registration[] | undefined;
  /** The sorted lists by kind, made once per change of the registrations (the cycle reads them). */
  private byKind: Map<string, Registration[]> | undefined;

  constructor(options: FlowOptions = {}) {
    this.name = options.name ?? "flow";
    this.shape = options.tape?.shape ?? "many";
    this.initialTape = options.tape?.initial;
    this.entryKey = options.tape?.entryKey ?? "_";
    this.limits = { ...DEFAULT_FLOW_LIMITS, ...options.limits };
    Tape.of(this.shape, this.initialTape); // a bad initial tape fails here, not at the first cycle
  }

  receive(route: string | Route, fn: ReceiverFn, options: RegisterOptions = {}): this {
    const r = typeof route === "string" ? parseRoute(route) : route;
    return this.add({
      kind: "receiver",
      route: r,
      routeText: routeText(r),
      fn,
      ...this.base(fn, options),
    });
  }

  send(route: string | Route, fn: SenderFn, options: SenderOptions = {}): this {
    const r = typeof route === "string" ? parseRoute(route) : route;
    for (const a of options.actions ?? [])
      if (!ACTIONS.includes(a))
        throw new ConfigError("bad_action", `unknown action ${JSON.stringify(a)}`);
    return this.add({
      kind: "sender",
      route: r,
      routeText: routeText(r),
      fn,
      actions: options.actions ? [...options.actions] : undefined,
      triggers: options.triggers ? [...options.triggers] : undefined,
      multi: options.multi ?? false,
      ...this.base(fn, options),
    });
  }

  hook(direction: "receive" | "send", fn: HookFn, options: RegisterOptions = {}): this {
    return this.add({ kind: "hook", direction, fn, ...this.base(fn, options) });
  }

  /** Every registration in its deterministic order: by priority, then route, then registration. */
  registrations(): readonly Registration[] {
    this.sorted ??= [...this.all].sort(byOrder);
    return this.sorted;
  }

  receivers(): readonly ReceiverRegistration[] {
    return this.ofKind("receiver") as ReceiverRegistration[];
  }

  senders(): readonly SenderRegistration[] {
    return this.ofKind("sender") as SenderRegistration[];
  }

  hooks(direction: "receive" | "send"): readonly HookRegistration[] {
    return this.ofKind(direction) as HookRegistration[];
  }

  private ofKind(kind: string): readonly Registration[] {
    if (!this.byKind) {
      this.byKind = new Map();
      for (const r of this.registrations()) {
        const k = r.kind === "hook" ? r.direction : r.kind;
        this.byKind.set(k, [...(this.byKind.get(k) ?? []), r]);
      }
    }
    return this.byKind.get(kind) ?? [];
  }

  private base(fn: { name: string }, options: RegisterOptions): Registered {
    const priority = [...(options.priority ?? [])];
    if (priority.some((p) => typeof p !== "number" || !Number.isFinite(p)))
      throw new ConfigError("bad_priority", "a priority tuple holds finite numbers");
    return {
      priority,
      index: this.all.length,
      identity: {
        module: options.identity?.module ?? this.name,
        function: options.identity?.function ?? (fn.name || "anonymous"),
        runtime: options.identity?.runtime ?? "ts",
        ...(options.identity?.digest ? { digest: options.identity.digest } : {}),
      },
    };
  }

  private add(r: Registration): this {
    this.all.push(r);
    this.sorted = undefined;
    this.byKind = undefined;
    return this;
  }
}
