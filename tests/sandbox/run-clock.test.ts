/**
 * The worker's own stop at max_eval_ms (src/sandbox/run.ts) counts the code's compute: the CPU
 * time of the worker's thread where the host tells it, not the wall time a busy machine spent
 * running other threads (issue 21: a 100,000-level stringify was stopped at "10000 ms of
 * compute" after far less CPU at a load of 24 on 2 cores).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Run } from "../../src/sandbox/run.js";

/** A run whose thread CPU clock the test sets (undefined: the host does not tell it). */
function run(cpu: { ms: number | undefined }) {
  return new Run(
    () => false,
    () => cpu.ms,
  );
}

describe("a run's clock for max_eval_ms", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a run the machine did not schedule is not stopped: wall time past the limit, CPU time below it", () => {
    const cpu = { ms: 5_000 as number | undefined };
    const r = run(cpu);
    vi.advanceTimersByTime(3_000); // 3 s of wall time …
    cpu.ms = 5_000 + 200; // … of which the thread ran 200 ms
    expect(r.shouldInterrupt(1_000)).toBe(false);
    expect(r.stop).toBeUndefined();
  });

  it("stops once the thread's CPU time passes the limit", () => {
    const cpu = { ms: 5_000 as number | undefined };
    const r = run(cpu);
    vi.advanceTimersByTime(3_000);
    cpu.ms = 5_000 + 1_100;
    vi.advanceTimersByTime(50); // past the clock's reading age
    expect(r.shouldInterrupt(1_000)).toBe(true);
    expect(r.stop).toBe("max_eval_ms");
  });

  it("counts wall time where the host does not tell CPU time (unchanged)", () => {
    const r = run({ ms: undefined });
    vi.advanceTimersByTime(999);
    expect(r.shouldInterrupt(1_000)).toBe(false);
    vi.advanceTimersByTime(2);
    expect(r.shouldInterrupt(1_000)).toBe(true);
    expect(r.stop).toBe("max_eval_ms");
  });

  it("gate time is not compute, in either clock", () => {
    const cpu = { ms: 0 as number | undefined };
    const r = run(cpu);
    vi.advanceTimersByTime(2_000);
    cpu.ms = 1_500; // a gate that spun its wait (the hot window) is still a gate
    r.pausedMs = 1_900;
    expect(r.shouldInterrupt(1_000)).toBe(false);
  });
});
