/**
 * The tape update of one cycle (seed 003 §6.3): a state that produced events is replaced by what
 * they activate, in event order; a state that produced none stays; an initial route adds to its key.
 */
import type { FlowEvent } from "./handler.js";
import { nodeText, type Node } from "./node.js";
import type { ReceiverRegistration } from "./registry.js";
import { activated } from "./route.js";
import type { Tape, TapeKey } from "./tape.js";

/** A receiver that produced an event: on which key, from which state. */
export interface Fired {
  receiver: ReceiverRegistration;
  key: TapeKey;
  state: Node | null;
  event: FlowEvent;
}

/** The tape after the events `fired` (the same tape when none fired). */
export function nextTape(tape: Tape, fired: readonly Fired[]): Tape {
  if (!fired.length) return tape;
  const consumed = new Map<TapeKey, Set<string>>();
  const added = new Map<TapeKey, Node[]>();
  for (const f of fired) {
    if (f.state) {
      const set = consumed.get(f.key) ?? new Set<string>();
      consumed.set(f.key, set.add(nodeText(f.state)));
    }
    const list = added.get(f.key) ?? [];
    added.set(f.key, list.concat(activated(f.receiver.route, f.event.action, f.state)));
  }
  const next = tape.copy();
  for (const key of new Set([...consumed.keys(), ...added.keys()])) {
    const gone = consumed.get(key) ?? new Set<string>();
    const kept = tape.nodes(key).filter((n) => !gone.has(nodeText(n)));
    next.set(key, [...kept, ...(added.get(key) ?? [])]);
  }
  return next;
}
