/**
 * Spin, then sleep: how the main thread and a lane's worker wait for each other's next message
 * (LIMITS.md, "The sandbox off the main thread"). On a virtual machine, waking a thread that
 * sleeps on another core costs 20–35 µs each way — more than a whole QuickJS evaluation of a
 * short snippet. A side that expects an answer soon therefore watches the other's message count
 * (SLOT.UP / SLOT.DOWN) for a short window before it sleeps: an answer within the window is
 * taken at once, and the side that posted it never has to wake a sleeper. The window is about
 * the cost of one wake, so a wait that misses it costs at most twice what sleeping at once
 * would have (the classic spin-then-park bound).
 *
 * The main thread's windows share a budget per event-loop turn: a run calling a gate in a loop,
 * each answer taken in a window, would otherwise keep the event loop from ever turning — no
 * timer, signal or other cast would run. Past the budget, the main thread waits for the worker's
 * message through the event loop, as it would without windows, and the budget starts again on
 * the loop's next turn.
 */
import { setImmediate } from "node:timers";

/** How long one side watches for the other's next message before it sleeps (ms). */
export const WINDOW_MS = envMs("SPELLBOOK_HOT_WINDOW_MS", 0.05);
/** The main thread's spinning per event-loop turn, all windows together (ms). */
export const BUDGET_MS = 1;

let budgetStart = -1;

/** When a main-thread window opening at `now` must end; at or before `now`: no window. */
export function mainWindowEnd(now: number): number {
  if (WINDOW_MS <= 0) return now;
  if (budgetStart < 0) {
    budgetStart = now;
    setImmediate(() => (budgetStart = -1)); // the event loop turned: a new budget
  }
  return Math.min(now + WINDOW_MS, budgetStart + BUDGET_MS);
}

/**
 * Whether a side should open its next window, learnt from the last ones. Windows that end
 * without the message, twice in a row, mean the other side is busy — its code computes, or the
 * machine has more runnable threads than cores, when spinning only keeps the other side off a
 * core. The side then sleeps at once for the next 1, 2, 4 … 64 waits (doubling while windows
 * keep missing), then tries a window again; a window that is answered ends the back-off. A
 * single miss (a garbage collection on the other side) changes nothing.
 */
export class Backoff {
  private skip = 0;
  private step = 0;
  private misses = 0;

  /** Whether this wait opens a window (else it sleeps at once). */
  open(): boolean {
    if (this.skip === 0) return true;
    this.skip--;
    return false;
  }

  /** The window was answered. */
  hit(): void {
    this.misses = 0;
    this.step = 0;
  }

  /** The window ended unanswered. */
  miss(): void {
    if (++this.misses < 2) return;
    this.step = Math.min(this.step * 2 || 1, MAX_SKIP);
    this.skip = this.step;
  }
}

const MAX_SKIP = 64;

/**
 * Watches `slot` of `control` until it counts past `seen` or the clock reaches `end`; true if it
 * did. Counts go up after their message is posted, so a count past `seen` means the next message
 * is there; the count may also lag a message the event loop already delivered (then it is equal,
 * not past). Wraps around safely. The clock is read every 64 checks (a check is a few
 * nanoseconds, the clock ~30).
 */
export function spinUntilPast(
  control: Int32Array,
  slot: number,
  seen: number,
  end: number,
): boolean {
  for (;;) {
    for (let i = 0; i < 64; i++) if (((Atomics.load(control, slot) - seen) | 0) > 0) return true;
    if (performance.now() >= end) return false;
  }
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}
