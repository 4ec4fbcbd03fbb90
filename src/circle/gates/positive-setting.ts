/** A gate's numeric setting as a spell writes it (fetch, browser, mcp, a2a). */
import { LONGEST_TIMER_MS } from "../../core/clock.js";

/**
 * A setting that is a whole number above 0, or absent; `bad` makes the gate's error. A duration
 * (`…_ms`) is at most what a timer can wait.
 */
export function positiveSetting(
  deps: Readonly<Record<string, unknown>>,
  key: string,
  bad: (message: string) => Error,
): number | undefined {
  const value = deps[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw bad(`${key} is a whole number above 0`);
  if (key.endsWith("_ms") && value > LONGEST_TIMER_MS)
    throw bad(
      `${key} is at most ${LONGEST_TIMER_MS} (about 24.8 days, the longest a timer can wait)`,
    );
  return value;
}
