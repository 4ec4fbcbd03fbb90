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
