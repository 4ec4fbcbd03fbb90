/**
 * Spin, then sleep (src/sandbox/hot-wait.ts): the windows a side of a lane watches
 * for the other's next message, their back-off when they go unanswered, and the main thread's
 * budget per event-loop turn.
 */
import { describe, expect, it } from "vitest";
import {
  BUDGET_MS,
  Backoff,
  WINDOW_MS,
  mainWindowEnd,
  spinUntilPast,
} from "../../src/sandbox/hot-wait.js";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("hot waits", () => {
  it("a window ends when the count goes past what was seen, not when it equals it", () => {
    const control = new Int32Array(new SharedArrayBuffer(8));
    control[0] = 5;
    expect(spinUntilPast(control, 0, 4, performance.now() + 1000)).toBe(true);
    // The count lags a message the event loop already delivered: equal is not past.
    const started = performance.now();
    expect(spinUntilPast(control, 0, 5, started + 2)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2);
    expect(spinUntilPast(control, 0, 6, performance.now() + 1)).toBe(false);
    // Counts wrap around after 2^31 messages.
    control[0] = -2147483648;
    expect(spinUntilPast(control, 0, 2147483647, performance.now() + 1000)).toBe(true);
  });

  it("after two unanswered windows a side sleeps at once 1, 2, 4 … 64 times; an answer ends it", () => {
    const backoff = new Backoff();
    const skipped = () => {
      let n = 0;
      while (!backoff.open()) n++;
      return n;
    };
    expect(skipped()).toBe(0);
    backoff.miss(); // one miss (a garbage collection over there) changes nothing
    expect(skipped()).toBe(0);
    const runs: number[] = [];
    for (let i = 0; i < 9; i++) {
      backoff.miss();
      runs.push(skipped());
    }
    expect(runs).toEqual([1, 2, 4, 8, 16, 32, 64, 64, 64]);
    backoff.hit();
    backoff.miss();
    expect(skipped()).toBe(0);
    backoff.miss();
    expect(skipped()).toBe(1);
  });

  it("the main thread's windows share a budget per event-loop turn", async () => {
    await nextTurn();
    const start = performance.now();
    const first = mainWindowEnd(start);
    expect(first).toBeCloseTo(start + WINDOW_MS, 6);
    // Later windows of the same turn end no later than the budget allows…
    const late = start + BUDGET_MS + 5;
    expect(mainWindowEnd(late)).toBeLessThanOrEqual(start + BUDGET_MS);
    expect(mainWindowEnd(late)).toBeLessThanOrEqual(late); // no window at all
    // …and the next turn of the event loop starts a new budget.
    await nextTurn();
    const again = performance.now();
    expect(mainWindowEnd(again)).toBeCloseTo(again + WINDOW_MS, 6);
  });
});
