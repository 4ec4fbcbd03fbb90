/**
 * A cast's cancellation: one AbortController per cast, aborted by its timeout_ms ward or by the
 * caller's signal (the entity's and the send's, as one), each with its reason.
 */

/** The one name of an abort's cause: a ward's or caller's string, else "aborted". */
export function abortReason(reason: unknown): string {
  return typeof reason === "string" ? reason : "aborted";
}

/** Aborts `controller` with "timeout_ms" after `timeout` ms (none when undefined); unref'd. */
export function abortAfter(
  controller: AbortController,
  timeout: number | undefined,
): NodeJS.Timeout | undefined {
  if (timeout === undefined) return undefined;
  // setTimeout takes at most 2^31-1 ms (~24.8 days); a larger delay would fire at once.
  const timer = setTimeout(() => controller.abort("timeout_ms"), Math.min(timeout, 2 ** 31 - 1));
  timer.unref();
  return timer;
}

/** Aborts `controller` when `outer` aborts, with its reason; returns the unlink. */
export function follow(controller: AbortController, outer: AbortSignal): () => void {
  const forward = (): void => controller.abort(abortReason(outer.reason));
  if (outer.aborted) forward();
  outer.addEventListener("abort", forward, { once: true });
  return () => outer.removeEventListener("abort", forward);
}

/** The entity's signal and the send's, as one (either stops the cast, with its reason). */
export function castSignal(
  entity: AbortSignal | undefined,
  send: AbortSignal | undefined,
): AbortSignal | undefined {
  if (!entity || !send) return entity ?? send;
  return AbortSignal.any([entity, send]);
}

/**
 * The queries of one cast, one after another, each unless the cast's `signal` aborts first:
 * then a rejection with the abort's reason. For an LLM that does not say it honours the
 * signal; its late answer (or failure) is dropped. One listener on the signal serves every
 * query of the cast (one added and removed a query cost ~4 µs a turn, issue 40): an abort
 * rejects the query in flight.
 */
export class QueryRace {
  /** The rejection of the query in flight, while one is. */
  private pending: ((err: Error) => void) | null = null;
  private listening = false;

  constructor(private readonly signal: AbortSignal) {}

  run<T>(query: Promise<T>): Promise<T> {
    const { signal } = this;
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) reject(new Error(abortReason(signal.reason)));
      else {
        this.pending = reject;
        if (!this.listening) {
          this.listening = true;
          signal.addEventListener(
            "abort",
            () => this.pending?.(new Error(abortReason(signal.reason))),
            { once: true },
          );
        }
      }
      const settled = (): void => {
        if (this.pending === reject) this.pending = null;
      };
      query.then(
        (value) => {
          settled();
          resolve(value);
        },
        (err: unknown) => {
          settled();
          // The query's own failure passes through as it came, as it would without the race.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(err);
        },
      );
    });
  }
}
