/**
 * The main thread's watch over one run in a lane's worker (LIMITS.md, "The sandbox off the main
 * thread"). The worker stops its own code at max_eval_ms and when asked to (the shared STOP
 * flag, read by QuickJS's interrupt handler about once a millisecond). Code stuck where QuickJS
 * never asks — a deep native operation, a recursion catching its own stack overflows — is ended
 * here, by terminating the worker:
 * - at max_eval_ms + GRACE of compute (gate time excluded), plus RENDER_MS when the run is over
 *   and its outcome is being read; the observation is a TimeoutError and the sandbox is lost.
 *   Compute is counted twice, and both must be spent: in wall time (gates excluded) and in the
 *   worker thread's CPU time where the host tells it (thread-cpu.ts; Linux). On a machine too
 *   busy to run the worker, wall time passes while the code gets no CPU: it has not overrun,
 *   and stops itself at max_eval_ms (its own clock) when it runs again — its sandbox kept;
 * - after a cancel (Ctrl-C, timeout_ms, a parent's end — COMP-9): the run is answered at once if
 *   the worker stops within ABORT_WAIT_MS, else with a cancel of its own (the cast goes on), and
 *   the worker is terminated if it has not stopped STUCK_MS later.
 */
import { timerDelay } from "../core/clock.js";
import type { Lane } from "./lane.js";
import { PHASE } from "./protocol.js";
import { crashOutput, type EvalHooks, type EvalOutput } from "./run.js";

export const graceMs = (evalMs: number): number => Math.max(100, evalMs * 0.15);
const RENDER_MS = 250;
export const ABORT_WAIT_MS = 40;
export const STUCK_MS = 1000;
/** The CPU time's unit on Linux (10 ms): the shortest wait before it is read again. */
const CPU_STEP_MS = 10;

export class Watchdog {
  /** What the run's caller is told (possibly before the worker answers: `detached`). */
  readonly outcome: Promise<EvalOutput>;
  /** Settles when the worker answered or is gone: the lane is free again. */
  readonly settled: Promise<void>;
  /** The caller was answered without the worker (a cancel it did not stop for). */
  detached = false;
  private tell!: (out: EvalOutput) => void;
  private free!: () => void;
  private told = false;
  private done = false;
  private codeMs = 0;
  private since = performance.now();
  private paused = false;
  private rendering = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The worker's CPU time when the run began, and the CPU time it may use (see `cpuLeft`). */
  private readonly cpuStart: number | undefined;
  private cpuBudget: number;
  private readonly onAbort = () => this.aborted();

  constructor(
    private readonly lane: Lane,
    private readonly evalMs: number,
    readonly hooks: EvalHooks,
  ) {
    this.outcome = new Promise((resolve) => (this.tell = resolve));
    this.settled = new Promise((resolve) => (this.free = resolve));
    // A start up to 50 ms old counts more CPU as spent, never less (ThreadClock); a fresh read
    // each turn would cost more than a short turn.
    this.cpuStart = lane.cpuMs(50);
    this.cpuBudget = evalMs + graceMs(evalMs);
    this.arm(evalMs + graceMs(evalMs));
    if (hooks.signal.aborted) queueMicrotask(this.onAbort);
    else hooks.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /**
   * A gate call began: its time is not the code's. The timer stays as it is (a gate call costs
   * no timer of its own): when it fires, it counts the compute so far and waits on if the budget
   * is not spent (`overdue`). After a cancel the timer is the wait for the worker to stop, and a
   * gate call holds the worker: that wait starts again when the gate ends (resume), as it does
   * for a cancel during a gate.
   */
  pause(): void {
    this.codeMs += performance.now() - this.since;
    this.paused = true;
    if (this.hooks.signal.aborted) this.clear();
  }

  resume(): void {
    this.paused = false;
    if (this.done) return; // the run ended meanwhile (its lane was lost): nothing to watch
    this.since = performance.now();
    if (this.hooks.signal.aborted) this.waitForStop();
    else if (this.timer === undefined) this.arm(this.left()); // it fired during the gate
  }

  /** The worker answered (or was lost: then `output` says so). */
  finish(output: EvalOutput): void {
    this.done = true;
    this.clear();
    this.hooks.signal.removeEventListener("abort", this.onAbort);
    this.answer(output);
    this.free();
  }

  /** What a run hears when its worker went away under it. */
  lostOutput(): EvalOutput {
    return crashOutput();
  }

  private answer(output: EvalOutput): void {
    if (this.told) return;
    this.told = true;
    this.tell(output);
  }

  private aborted(): void {
    if (this.done) return;
    this.lane.stop();
    // In a gate, the gate hears the cancel and the worker stops when it answers (resume).
    if (!this.paused) this.waitForStop();
  }

  private waitForStop(): void {
    this.clear();
    this.timer = setTimeout(() => {
      this.detached = true;
      this.answer({
        console: "",
        consoleDropped: 0,
        stopped: "aborted",
        error: { name: "CancelledError", message: "the run was cancelled", stack: "" },
      });
      this.timer = setTimeout(
        () => this.lane.kill(new Error("a cancelled run did not stop")),
        STUCK_MS,
      );
      this.timer.unref();
    }, ABORT_WAIT_MS);
  }

  private arm(ms: number): void {
    this.clear();
    // max_eval_ms and its grace may be past what a timer waits (it would fire at once): the
    // longest timer, then `overdue` arms the rest.
    this.timer = setTimeout(() => this.overdue(), timerDelay(Math.max(0, ms)));
  }

  /** Compute left of max_eval_ms and its grace (gate time is not compute). */
  private left(): number {
    const spent = this.codeMs + (this.paused ? 0 : performance.now() - this.since);
    return this.evalMs + graceMs(this.evalMs) - spent;
  }

  private overdue(): void {
    this.timer = undefined;
    if (this.paused) return; // in a gate: its end arms the timer again (resume)
    const left = this.left();
    if (left > 0 && !this.rendering) {
      this.arm(left); // gates took some of the time: the code has not used up its budget
      return;
    }
    const cpuLeft = this.cpuLeft();
    if (cpuLeft > 0) {
      this.arm(Math.max(cpuLeft, CPU_STEP_MS)); // the worker was not run: no overrun yet
      return;
    }
    if (this.lane.phase === PHASE.RENDERING && !this.rendering) {
      this.rendering = true; // reading the outcome has a budget of its own
      this.cpuBudget = this.cpuUsed() + RENDER_MS + graceMs(this.evalMs);
      this.arm(RENDER_MS + graceMs(this.evalMs));
      return;
    }
    this.answer({
      console: "",
      consoleDropped: 0,
      crashed: true,
      stopped: "max_eval_ms",
      error: {
        name: "TimeoutError",
        message: `the run exceeded max_eval_ms (${this.evalMs} ms of compute) and did not stop where the sandbox can interrupt it (a deep native operation, or a recursion catching its own stack overflows): its sandbox was replaced, the variables it held are lost, and circle state is injected again`,
        stack: "",
      },
    });
    this.lane.kill(new Error("a run overran max_eval_ms"));
  }

  /** CPU time the worker has used since the run began; 0 where the host does not say. */
  private cpuUsed(): number {
    const now = this.lane.cpuMs();
    return now === undefined || this.cpuStart === undefined ? 0 : now - this.cpuStart;
  }

  /** CPU time left of the budget; 0 where the host does not say (wall time alone decides). */
  private cpuLeft(): number {
    if (this.cpuStart === undefined || this.lane.cpuMs() === undefined) return 0;
    return this.cpuBudget - this.cpuUsed();
  }

  private clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
