/**
 * A run of code: what the main thread gives it (EvalHooks: gates, the cast's signal, the loom)
 * and gets back (EvalOutput), and `Run`, the run as the lane's worker keeps it — its clock
 * (gates excluded), its console, why it is stopping.
 */
import { currentThreadId, ThreadClock } from "./thread-cpu.js";

/** What the code's gate call resolved to; `stop` ends the run (done — LOOP-3). */
export type GateReply =
  { ok: true; value: unknown; stop?: boolean } | { ok: false; message: string };

/** What the main thread needs to run code in a sandbox (sandbox.ts). */
export interface EvalHooks {
  /** Runs one gate call of the code, with the arguments as the code passed them. */
  callGate(name: string, args: unknown[]): GateReply | Promise<GateReply>;
  /** Aborts a running evaluation (a ward of the cast, a terminated parent — COMP-9). */
  signal: AbortSignal;
  /** LOOM-11: the entity's turns after the first `known` and its fold, as JSON text. */
  loom?(known: number): string;
}

/** A value as the viewport shows it: type, size, and its text (cut at a preview length). */
export interface ValueView {
  type: string;
  size?: number;
  /** Length of the full text representation. */
  chars: number;
  text: string;
}

export interface ErrorView {
  name: string;
  message: string;
  stack: string;
}

/** Why a run stopped before its end: done was called, a ward, a cancel. */
export type Stop = "done" | "max_eval_ms" | "aborted";

export interface EvalOutput {
  console: string;
  /** Console characters dropped past the cap. */
  consoleDropped: number;
  /** The value of the last expression (absent when undefined or when the run failed). */
  value?: ValueView;
  error?: ErrorView;
  stopped?: Stop;
  /** The module trapped: this sandbox and its state are gone. */
  crashed?: boolean;
}

const CONSOLE_CAP = 64 * 1024;

/** How old a reading of the thread's CPU clock may be (a /proc read costs ~20 µs). */
const START_READ_AGE_MS = 50;
const READ_AGE_MS = 10;
let ownClock: ThreadClock | undefined;

/** The CPU time of the thread the run is in (a lane's worker), if the host tells it. */
function ownThreadCpuMs(maxAgeMs: number): number | undefined {
  ownClock ??= new ThreadClock(currentThreadId());
  return ownClock.read(maxAgeMs);
}

/**
 * One evaluation in progress: its clock (gates excluded), its console, why it is stopping.
 * max_eval_ms counts compute: the thread's CPU time where the host tells it (thread-cpu.ts), so
 * a run the machine is too busy to schedule is not stopped for the time it waited (issue 21);
 * elsewhere, wall time. CPU time never passes wall time, so the CPU clock is read only once
 * wall time is past the limit.
 */
export class Run {
  readonly startedAt = performance.now();
  /** The thread's CPU time when the run began; a reading up to 50 ms old counts more, never less. */
  private readonly cpuStart: number | undefined;
  pausedMs = 0;
  inGate = false;
  stop: Stop | undefined;
  console = "";
  consoleDropped = 0;

  /** `stopRequested`: the main thread asked the run to stop (the cast's signal, Ctrl-C). */
  constructor(
    private readonly stopRequested: () => boolean,
    private readonly cpuMs: (maxAgeMs: number) => number | undefined = ownThreadCpuMs,
  ) {
    this.cpuStart = cpuMs(START_READ_AGE_MS);
  }

  print(level: string, text: string): void {
    const line = (level === "log" || level === "info" ? "" : `[${level}] `) + text + "\n";
    const room = CONSOLE_CAP - this.console.length;
    if (room <= 0) this.consoleDropped += line.length;
    else {
      this.console += line.slice(0, room);
      this.consoleDropped += Math.max(0, line.length - room);
    }
  }

  /** Polled by QuickJS while the code runs; true interrupts it (uncatchably). */
  shouldInterrupt(evalMs: number): boolean {
    if (this.stop) return true;
    if (this.stopRequested()) {
      this.stop = "aborted";
      return true;
    }
    if (!this.inGate && this.computeMs(evalMs) > evalMs) {
      this.stop = "max_eval_ms"; // WARD-2: the runtime interrupts, the entity cannot opt out
      return true;
    }
    return false;
  }

  /** The run's compute so far (gates excluded), exact once it may pass `evalMs`. */
  private computeMs(evalMs: number): number {
    const wall = performance.now() - this.startedAt - this.pausedMs;
    if (wall <= evalMs) return wall;
    const now = this.cpuMs(READ_AGE_MS);
    if (now === undefined || this.cpuStart === undefined) return wall;
    return Math.min(wall, now - this.cpuStart);
  }

  /** The error the entity sees when the runtime stopped its code. */
  interruption(evalMs: number): ErrorView {
    if (this.stop === "max_eval_ms") {
      return {
        name: "TimeoutError",
        message: `the run exceeded max_eval_ms (${evalMs} ms of compute) and was interrupted; the sandbox is still usable and keeps the state it had when it stopped`,
        stack: "",
      };
    }
    return {
      name: "CancelledError",
      // The main thread knows why, and names it (sandbox.ts).
      message: "the run was cancelled",
      stack: "",
    };
  }
}

export function crashOutput(): EvalOutput {
  return {
    console: "",
    consoleDropped: 0,
    crashed: true,
    error: {
      name: "SandboxCrashed",
      message:
        "the sandbox crashed and its variables are lost; the next run starts in a fresh sandbox (circle state is injected again)",
      stack: "",
    },
  };
}
