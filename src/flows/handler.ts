/**
 * What a flow's handlers are: functions of TypeScript, of the QuickJS sandbox or of a cantrip,
 * all behind the same signatures. `null` or `undefined` from a hook drops (seed 003 §6.1: `None`).
 */
import type { Action } from "./route.js";
import type { TapeKey } from "./tape.js";

/** A receiver's outcome (§6.3): an action and an implementation-defined trigger (a string here). */
export interface FlowEvent {
  action: Action;
  trigger: string | null;
}

export interface HandlerContext {
  /** Aborted when the handler runs past the flow's max_handler_ms. */
  readonly signal: AbortSignal;
}

export interface ReceiverInput extends HandlerContext {
  payload: unknown;
  /** The tape key that made the receiver eligible; for an initial route, the entry key. */
  key: TapeKey;
  /** The tape state (canonical text) that made it eligible; null for an initial route. */
  state: string | null;
  /** The receiver's canonical route. */
  route: string;
}

export interface SenderInput extends HandlerContext {
  payload: unknown;
  key: TapeKey;
  event: FlowEvent;
  /** The canonical route of the receiver whose event triggered the sender. */
  route: string;
}

type Maybe<T> = T | null | undefined;
export type ReceiverFn = (input: ReceiverInput) => Maybe<FlowEvent> | Promise<Maybe<FlowEvent>>;
/** Returns the outgoing payload; null or undefined emits nothing. */
export type SenderFn = (input: SenderInput) => unknown;
/** Returns the (transformed) payload; null or undefined drops the message (§6.1). */
export type HookFn = (payload: unknown, ctx: HandlerContext) => unknown;

/** Who a handler is, for DNA and traces (§7: module and function name). */
export interface HandlerIdentity {
  module: string;
  function: string;
  /** How it runs: ts, js (sandbox), cast (a cantrip), action (fixed). */
  runtime?: string;
  /** A digest of its source, when it has one (js handlers). */
  digest?: string;
}

/** The event helpers handlers use: `move("ok")`, `stay()`, `test("x")`. */
export const move = (trigger: string | null = null): FlowEvent => ({ action: "MOVE", trigger });
export const stay = (trigger: string | null = null): FlowEvent => ({ action: "STAY", trigger });
export const test = (trigger: string | null = null): FlowEvent => ({ action: "TEST", trigger });

/** A receiver's return value as an event; a message saying why when it is not one. */
export function toEvent(value: unknown): FlowEvent | null | string {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value))
    return `returned ${describe(value)}, not an event`;
  const { action, trigger } = value as Record<string, unknown>;
  const upper = typeof action === "string" ? action.toUpperCase() : "";
  if (upper !== "TEST" && upper !== "STAY" && upper !== "MOVE")
    return `returned action ${describe(action)}; an event's action is TEST, STAY or MOVE`;
  if (trigger !== undefined && trigger !== null && typeof trigger !== "string")
    return `returned trigger ${describe(trigger)}; a trigger is a string`;
  return { action: upper, trigger: trigger ?? null };
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
