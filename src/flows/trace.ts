/**
 * The conformance trace of one cycle (seed 003 §8): ordered receiver activations, ordered sender
 * emissions, the canonical tape delta, and every drop with its cause. A wire format: the keys
 * are the ones flow-tests.yaml compares (FLOWS.md "Trace").
 */
import type { Action } from "./route.js";
import type { TapeDelta, TapeKey } from "./tape.js";

/** A receiver that produced an event, or failed (then `error`, and no action). */
export interface ActivationTrace {
  route: string;
  key: TapeKey;
  state: string | null;
  action?: Action;
  trigger?: string | null;
  error?: string;
}

export interface EmissionTrace {
  route: string;
  key: TapeKey;
  payload: unknown;
}

export type DropCause =
  "receive_hook" | "send_hook" | "max_message_bytes" | "max_tape_nodes" | "sender_error";

export interface DropTrace {
  by: DropCause;
  /** The hook (its function name) or sender route that dropped it. */
  at?: string;
  key?: TapeKey;
  error?: string;
}

export interface CycleTrace {
  /** Set when the inbound message was dropped: no receiver ran. */
  dropped?: DropTrace;
  receivers: ActivationTrace[];
  emissions: EmissionTrace[];
  /** Outbound emissions dropped by a send hook, a limit or a failing sender. */
  drops: DropTrace[];
  tape: TapeDelta[];
}
