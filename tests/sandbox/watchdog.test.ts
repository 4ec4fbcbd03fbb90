/**
 * The main thread's watch over one run (src/sandbox/watchdog.ts), against a lane
 * that only records what it is asked: the cancel paths, and the timer kept through gate calls.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Lane } from "../../src/sandbox/lane.js";
import { PHASE } from "../../src/sandbox/protocol.js";
import { ABORT_WAIT_MS, STUCK_MS, Watchdog } from "../../src/sandbox/watchdog.js";

/** `cpu`: the worker's CPU time as the lane reports it (undefined: the host does not say). */
function fakeLane(cpu: { ms: number | undefined } = { ms: undefined }) {
  return { stop: vi.fn(), kill: vi.fn(), phase: PHASE.RUNNING as number, cpuMs: () => cpu.ms };
}

function watch(evalMs = 1000, cpu?: { ms: number | undefined }) {
  const lane = fakeLane(cpu);
  const controller = new AbortController();
  const hooks = { signal: controller.signal, callGate: () => ({ ok: true as const, value: 1 }) };
  const dog = new Watchdog(lane as unknown as Lane, evalMs, hooks);
  return { lane, controller, dog };
}

describe("the watchdog of a run", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a cancel just before a gate call waits for the gate, as a cancel during one does", () => {
    // The worker posted a gate call before its interrupt handler saw STOP: the main thread
    // answers it, and that time is not the worker's to stop in. Only the gate's end starts the
    // wait for the worker (ABORT_WAIT_MS, then STUCK_MS).
    const { lane, controller, dog } = watch();
    controller.abort();
    expect(lane.stop).toHaveBeenCalled();
    dog.pause();
    vi.advanceTimersByTime(ABORT_WAIT_MS + STUCK_MS + 500);
    expect(lane.kill).not.toHaveBeenCalled();
    expect(dog.detached).toBe(false);
    dog.resume(); // the gate answered (a cancel): now the worker must stop
    vi.advanceTimersByTime(ABORT_WAIT_MS);
    expect(dog.detached).toBe(true);
    vi.advanceTimersByTime(STUCK_MS);
    expect(lane.kill).toHaveBeenCalledTimes(1);
  });

  it("a cancel during a gate call waits for the gate too (unchanged)", () => {
    const { lane, controller, dog } = watch();
    dog.pause();
    controller.abort();
    vi.advanceTimersByTime(ABORT_WAIT_MS + STUCK_MS + 500);
    expect(lane.kill).not.toHaveBeenCalled();
    expect(dog.detached).toBe(false);
  });
  it("ends code that overruns max_eval_ms after a gate longer than that: the gate's time is not counted", async () => {
    // max_eval_ms 1000 + 150 ms of grace. The timer fires during the gate and waits on.
    const { lane, dog } = watch(1000);
    vi.advanceTimersByTime(100);
    dog.pause();
    vi.advanceTimersByTime(3000);
    dog.resume();
    vi.advanceTimersByTime(1049);
    expect(lane.kill).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(lane.kill).toHaveBeenCalledTimes(1);
    expect((await dog.outcome).error?.name).toBe("TimeoutError");
  });

  it("max_eval_ms at its longest (2^31-1) arms a timer it can wait, not one that fires at once", () => {
    // With its grace the budget is past what a timer waits: a timer asked for more fires after
    // 1 ms, and the watchdog, finding budget left, armed it again every millisecond.
    const timer = vi.spyOn(globalThis, "setTimeout");
    const { lane } = watch(2 ** 31 - 1);
    vi.advanceTimersByTime(1000);
    expect(lane.kill).not.toHaveBeenCalled();
    expect(timer.mock.calls.length).toBeLessThanOrEqual(1);
    for (const [, ms] of timer.mock.calls) expect(ms).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it("gives the outcome's reading its own budget once the code's is spent", () => {
    const { lane } = watch(1000);
    lane.phase = PHASE.RENDERING;
    vi.advanceTimersByTime(1150);
    expect(lane.kill).not.toHaveBeenCalled();
    vi.advanceTimersByTime(250 + 150);
    expect(lane.kill).toHaveBeenCalledTimes(1);
  });
  it("a gate answered after its run ended (the lane was lost) arms no timer", () => {
    // The timer would keep the process alive for up to max_eval_ms and its grace, for nothing.
    const { dog } = watch(10_000);
    dog.pause();
    dog.finish(dog.lostOutput());
    dog.resume();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("counts the worker's CPU time: a worker the machine did not run has not overrun (issue 21)", () => {
    const cpu = { ms: 5000 as number | undefined };
    const { lane, dog } = watch(1000, cpu);
    let told = false;
    void dog.outcome.then(() => (told = true));
    vi.advanceTimersByTime(1150 + 5000); // wall time far past max_eval_ms + grace
    cpu.ms = 5000 + 400; // ... while the worker got 400 ms of CPU
    vi.advanceTimersByTime(1000);
    expect(lane.kill).not.toHaveBeenCalled();
    cpu.ms = 5000 + 1150; // its CPU time spent too: only now is it an overrun
    vi.advanceTimersByTime(1000);
    expect(lane.kill).toHaveBeenCalledTimes(1);
    return Promise.resolve().then(() => expect(told).toBe(true));
  });

  it("where the host does not tell the CPU time, wall time alone decides", () => {
    const { lane } = watch(1000);
    vi.advanceTimersByTime(1149);
    expect(lane.kill).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(lane.kill).toHaveBeenCalledTimes(1);
  });
});
