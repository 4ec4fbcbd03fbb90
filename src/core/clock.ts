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
