let lastMs = -1;
let lastIso = "";

/**
 * The current time as an ISO 8601 string. Formatting a date costs more than a whole turn of
 * bookkeeping, and turns often end within the same millisecond: those share one string.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/**
 * A monotonic clock in milliseconds, for durations. Not `performance.now()`: that global loads
 * Node's perf_hooks on first use, which `spell run` would pay for at start-up.
 */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

/**
 * The longest delay Node's timers wait (2^31-1 ms, about 24.8 days); a longer one fires at once.
 * The schemas refuse longer durations where a spell writes them; library callers are clamped.
 */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a timer can wait it: at most LONGEST_TIMER_MS. */
export function timerDelay(ms: number): number {
  return Math.min(ms, LONGEST_TIMER_MS);
}
