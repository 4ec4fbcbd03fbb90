/**
 * A cast's cancellation: one AbortController per cast (CastStop), aborted by its timeout_ms ward
 * or by the caller's signal (the entity's and the send's, as one), each with its reason.
 */
import { timerDelay } from "./clock.js";

/** The one name of an abort's cause: a ward's or caller's string, else "aborted". */
export function abortReason(reason: unknown): string {
  return typeof reason === "string" ? reason : "aborted";
}

/** Whether a cast was stopped, and why: what the loop and the medium check on every turn. */
export interface CastStopState {
  /** Null while the cast may go on; once stopped, its abort's reason (as `abortReason` says it). */
  readonly reason: string | null;
}

/**
 * A cast's AbortController, and whether it was aborted as a plain field. The loop and the medium
 * check `reason` on every turn, never `signal.aborted`: each AbortSignal Node 20 makes has a
 * hidden class of its own (its prototype is set after it is made), and aborting it changes that
 * class, so V8 threw away every optimized function that read `signal.aborted` at the end of each
 * cast (whose release aborts its signal) and again when the next cast's signal came (issue 40).
 * Gates and LLMs still get the signal itself.
 */
export class CastStop implements CastStopState {
  private readonly controller = new AbortController();
  reason: string | null = null;

  /** Aborted with `reason` when the cast stops. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the cast with `reason`; a cast already stopped keeps its first reason. */
  stop(reason: string): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.controller.abort(reason);
  }
}

/** Stops the cast with "timeout_ms" after `timeout` ms (none when undefined); unref'd. */
export function abortAfter(
  stop: CastStop,
  timeout: number | undefined,
): NodeJS.Timeout | undefined {
  if (timeout === undefined) return undefined;
  const timer = setTimeout(() => stop.stop("timeout_ms"), timerDelay(timeout));
  timer.unref();
  return timer;
}

/** Stops the cast when `outer` aborts, with its reason; returns the unlink. */
export function follow(stop: CastStop, outer: AbortSignal): () => void {
  const forward = (): void => stop.stop(abortReason(outer.reason));
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

  constructor(private readonly stop: CastStop) {}

  run<T>(query: Promise<T>): Promise<T> {
    const { stop } = this;
    return new Promise<T>((resolve, reject) => {
      if (stop.reason !== null) reject(new Error(stop.reason));
      else {
        this.pending = reject;
        if (!this.listening) {
          this.listening = true;
          stop.signal.addEventListener(
            "abort",
            () => this.pending?.(new Error(stop.reason ?? "aborted")),
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
