import type { QuickJSWASMModule } from "quickjs-emscripten";
import type { WasmMemory } from "./lane-memory.js";

/**
 * max_eval_ms needs QuickJS to ask "should I stop?" often enough. It asks every 10,000 ticks
 * (calls and loop turns), which is ~1 ms of plain code — but a tick can be costly: a loop
 * that fills a 1 MiB array and catches its out-of-memory error, or a recursion that catches
 * stack overflows (each building a backtrace), ran 5–9 s against 1–1.5 s budgets. So each
 * time QuickJS asks, the pace sets how many ticks until it asks again, aiming at one question
 * per TARGET_MS: fewer ticks when they were slow, back up to 10,000 when they are fast.
 *
 * The count lives in the JSContext struct, whose layout is not exported: its offset is found
 * once per engine (findCounterOffset) — the only int equal to 10,000 in the struct while the
 * handler runs (QuickJS resets it just before) — and checked by its effect. Where it cannot be
 * found, the pace does nothing and the budget holds only to QuickJS's own rhythm.
 */
const INIT = 10_000;
const TARGET_MS = 1;
const MIN_TICKS = 1;
const START_TICKS = 10;

export class InterruptPace {
  private last = 0;
  private ticks = INIT;
  private view: Int32Array | undefined;

  constructor(
    private readonly memory: WasmMemory,
    /** Index of the counter in an Int32Array over the heap. */
    private readonly index: number,
  ) {}

  /**
   * A run begins: the time since the last question is not the code's, and the first question
   * comes after START_TICKS (a costly tick found only after 10,000 of them would be too late).
   */
  reset(): void {
    this.last = performance.now();
    this.ticks = START_TICKS;
    this.heap()[this.index] = START_TICKS;
  }

  /** Called at each question of QuickJS, before it is answered. */
  tick(): void {
    const now = performance.now();
    if (this.last !== 0) {
      const elapsed = Math.max(now - this.last, 1e-3);
      this.ticks = Math.max(
        MIN_TICKS,
        Math.min(INIT, Math.round((this.ticks * TARGET_MS) / elapsed)),
      );
      this.heap()[this.index] = this.ticks;
    }
    this.last = now;
  }

  private heap(): Int32Array {
    const buffer = this.memory.buffer;
    if (this.view?.buffer !== buffer) this.view = new Int32Array(buffer);
    return this.view;
  }
}

/** The offset of the interrupt counter in a JSContext, or undefined when it cannot be found. */
export function findCounterOffset(
  module: QuickJSWASMModule,
  memory: WasmMemory,
): number | undefined {
  const runtime = module.newRuntime();
  const context = runtime.newContext();
  try {
    const ctxPtr = (context as unknown as { ctx: { value: number } }).ctx.value;
    let offset: number | undefined;
    let calls = 0;
    runtime.setInterruptHandler(() => {
      calls++;
      const heap = new Int32Array(memory.buffer);
      if (calls === 1) {
        const found: number[] = [];
        for (let i = 0; i < 512; i++) if (heap[(ctxPtr >> 2) + i] === INIT) found.push(i * 4);
        offset = found.length === 1 ? found[0] : undefined;
      }
      if (offset !== undefined) heap[(ctxPtr + offset) >> 2] = 100;
      return false;
    });
    // 200,000 loop turns: 20 questions at QuickJS's rhythm, ~2,000 when the offset is right.
    context.evalCode("for (var i = 0; i < 200000; i++) {}").dispose();
    return offset !== undefined && calls > 500 ? offset : undefined;
  } finally {
    context.dispose();
    runtime.dispose();
  }
}
