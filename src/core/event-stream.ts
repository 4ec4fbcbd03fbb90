/**
 * A cast's events as an async iterator (`for await (const event of cantrip.events(intent))`),
 * the pull-side twin of `onEvent`. The loop never waits for the reader: events are queued as
 * the loop emits them and handed out in order; the iterator ends after the cast's last event,
 * and `result` is the cast's result. Leaving the loop early (`break`, a throw) cancels the cast
 * with the reason "cancelled" and waits for it to end, so nothing runs on unseen.
 */
import type { CantripEvent, EventListener } from "./events.js";

/** What `Cantrip.events` returns: the events, then the result. */
export interface CastEvents<R> extends AsyncIterableIterator<CantripEvent> {
  /** The cast's result, as `cast` gives it; rejects as `cast` would (a failed cast does not). */
  readonly result: Promise<R>;
}

/** The reason a cast stopped by leaving its event loop early is truncated with. */
export const EVENTS_CLOSED = "cancelled";

/** Starts `run` with a listener and a signal of its own, and reads its events as they come. */
export function streamEvents<R>(
  run: (onEvent: EventListener, signal: AbortSignal) => Promise<R>,
): CastEvents<R> {
  const queue: CantripEvent[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  let failure: { error: unknown } | undefined;
  const controller = new AbortController();
  let closed = false;
  const result = run((event) => {
    if (closed) return;
    queue.push(event);
    wake?.();
  }, controller.signal);
  // The result is read by whoever wants it; a rejection nobody awaits is not an unhandled one.
  result.then(
    () => {
      settled = true;
      wake?.();
    },
    (error: unknown) => {
      settled = true;
      failure = { error };
      wake?.();
    },
  );
  const stream: CastEvents<R> = {
    result,
    async next(): Promise<IteratorResult<CantripEvent>> {
      while (queue.length === 0 && !settled) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      const event = queue.shift();
      if (event) return { value: event, done: false };
      if (failure) {
        const { error } = failure;
        failure = undefined;
        throw error;
      }
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<CantripEvent>> {
      closed = true;
      if (!settled) controller.abort(EVENTS_CLOSED);
      queue.length = 0;
      failure = undefined;
      await result.catch(() => undefined);
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}

/** A cast's options with the stream's listener and signal added to any of their own. */
export function alsoStreaming<O extends { onEvent?: EventListener; signal?: AbortSignal }>(
  options: O,
  onEvent: EventListener,
  closed: AbortSignal,
): O {
  const { onEvent: also, signal } = options;
  // A listener of the options that throws is detached, as the event bus detaches one; the
  // stream's own goes on.
  let alive = Boolean(also);
  return {
    ...options,
    onEvent: (event: CantripEvent) => {
      onEvent(event);
      if (!alive) return;
      try {
        also!(event);
      } catch (err) {
        alive = false;
        process.emitWarning(`event listener failed and was detached: ${(err as Error).message}`);
      }
    },
    signal: signal ? AbortSignal.any([signal, closed]) : closed,
  };
}
