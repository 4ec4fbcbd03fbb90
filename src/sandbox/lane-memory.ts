/**
 * The memory ward of the code medium (max_memory_mb), enforced on the WebAssembly heap itself.
 *
 * QuickJS's own limit cannot hold in this build: it counts an allocation by its usable size,
 * which WebAssembly's malloc does not report, so a 1 MiB array counted 8 bytes and a sandbox
 * under a 16 MiB limit grew to 2 GiB. Every lane therefore gets its own WebAssembly.Memory
 * whose `grow` asks this budget first; a refused growth makes malloc fail and the code sees
 * QuickJS's "out of memory" error (an error observation; the sandbox goes on, see Sandbox.read).
 *
 * The rules, with HEAP0 the instance's initial heap (16 MiB, QuickJS's own runtimes inside):
 * - growth while a sandbox runs is charged to it: it may grow the heap by its limit, and once
 *   per run by max(2 MiB, 6% of the heap) more after a refusal (room for QuickJS's "out of memory" error);
 * - of the initial heap, all but 1 MiB is taken away from the sandboxes (pinInitialHeap);
 * - the lane's heap never passes HEAP0 + 2 MiB + the sum of the limits of the sandboxes living
 *   in it (the 2 MiB: room to render the error of a run that used up its memory).
 * So one sandbox uses at most its limit plus the free space of the initial heap and of what
 * its lane-mates freed, and the host never holds more than the lanes' sums of limits.
 */
export interface MemoryCharge {
  readonly limitBytes: number;
  grownBytes: number;
  /** What is left of the grace after a refusal (see GRACE); -1 before any. Reset by `startRun`. */
  graceLeft: number;
}

/** The part of WebAssembly.Memory used here (the TypeScript lib we compile against has none). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const Wasm = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly;

const PAGE = 65536;
/** The module's declared initial heap (emscripten's INITIAL_MEMORY) and maximum (2 GiB). */
export const INITIAL_HEAP = 16 * 1024 * 1024;
const MAX_PAGES = 32768;
/** Of the initial heap, what is left free for QuickJS's runtimes (pinInitialHeap). */
const RESERVE = 1024 * 1024;
/**
 * Growth a sandbox may have past its limit (and its lane's budget), once per run, after a
 * refusal: QuickJS then needs a little heap to build its "out of memory" error (without it, it
 * throws null). Emscripten grows by 5% of the heap at least: the grace is 6% of the heap when
 * that is more than 2 MiB.
 */
const GRACE = 2 * 1024 * 1024;
/** Room beyond the sum of limits for reading a run's outcome after it used up its memory. */
const HEADROOM = 2 * 1024 * 1024;

/** The most a lane's heap may hold with sandboxes of these summed limits living in it. */
export const heapBudget = (limitsBytes: number): number => INITIAL_HEAP + HEADROOM + limitsBytes;

export class LaneMemory {
  readonly memory: WasmMemory;
  /** The sandbox whose code is running in the lane (growth is charged to it). */
  running: MemoryCharge | undefined;
  private readonly live = new Set<MemoryCharge>();
  /** Growths refused since the last one granted (see mayGrow). */
  private refusedInRow = 0;
  /** True while the initial heap is being pinned: no growth at all. */
  private closed = false;
  /** Growths refused, for tests and benchmarks. */
  refused = 0;

  /** `onResize`: told the heap's size after each growth (the lane's worker reports it). */
  constructor(private readonly onResize?: (bytes: number) => void) {
    const memory = new Wasm.Memory({ initial: INITIAL_HEAP / PAGE, maximum: MAX_PAGES });
    const grow = memory.grow.bind(memory);
    // Emscripten grows the heap through this call; a throw is a failed malloc.
    Object.defineProperty(memory, "grow", {
      value: (pages: number): number => {
        if (!this.mayGrow(pages * PAGE)) {
          this.refused++;
          throw new RangeError("the sandbox's max_memory_mb is used up");
        }
        const before = grow(pages);
        this.onResize?.(memory.buffer.byteLength);
        return before;
      },
    });
    this.memory = memory;
    onResize?.(INITIAL_HEAP);
  }

  /**
   * Takes the free space of the initial heap away from the sandboxes, leaving RESERVE of it:
   * otherwise the first sandbox of a lane could use ~14 MiB past its limit without growing
   * the heap. The space is allocated and never freed (its pages are never touched).
   */
  pinInitialHeap(module: { _malloc(size: number): number; _free(ptr: number): void }): void {
    const blocks: { ptr: number; size: number }[] = [];
    this.closed = true;
    try {
      for (const size of [1 << 20, 1 << 16]) {
        for (let ptr = module._malloc(size); ptr !== 0; ptr = module._malloc(size))
          blocks.push({ ptr, size });
      }
    } finally {
      this.closed = false;
    }
    // Give back RESERVE: QuickJS's runtimes and spare shells live there.
    for (let freed = 0; freed < RESERVE && blocks.length;) {
      const block = blocks.pop()!;
      module._free(block.ptr);
      freed += block.size;
    }
  }

  /** Runs `fn` with growth charged to `charge` (undefined: to the lane's budget only). */
  chargedTo<T>(charge: MemoryCharge | undefined, fn: () => T): T {
    const before = this.running;
    this.running = charge;
    try {
      return fn();
    } finally {
      this.running = before;
    }
  }

  /** A run of `charge`'s sandbox begins: growth is charged to it, with a fresh grace. */
  startRun(charge: MemoryCharge): void {
    charge.graceLeft = -1;
    this.refusedInRow = 0;
    this.running = charge;
  }

  /** A sandbox opened in the lane: its limit joins the lane's budget. */
  admit(limitBytes: number): MemoryCharge {
    const charge: MemoryCharge = { limitBytes, grownBytes: 0, graceLeft: -1 };
    this.live.add(charge);
    return charge;
  }

  leave(charge: MemoryCharge): void {
    this.live.delete(charge);
  }

  /**
   * True when the heap is bigger than its residents may hold: sandboxes that left it grew it,
   * and the space they freed would let a newcomer pass its limit. Such a lane takes no new
   * sandboxes (Lane.retiring) and is dropped, whole, when its last one is gone.
   */
  get oversized(): boolean {
    return this.heapBytes > this.budget();
  }

  private budget(): number {
    let limits = 0;
    for (const c of this.live) limits += c.limitBytes;
    return heapBudget(limits);
  }

  get heapBytes(): number {
    return this.memory.buffer.byteLength;
  }

  private mayGrow(bytes: number): boolean {
    if (this.closed) return false;
    const fits = this.heapBytes + bytes <= this.budget();
    const charge = this.running;
    if (!charge) return fits;
    if (fits && charge.grownBytes + bytes <= charge.limitBytes) {
      charge.grownBytes += bytes;
      this.refusedInRow = 0;
      return true;
    }
    if (charge.graceLeft > 0 && bytes <= charge.graceLeft) {
      charge.graceLeft -= bytes;
      this.refusedInRow = 0;
      return true;
    }
    // Emscripten tries three sizes (20%, 10%, 5% of the heap) before malloc fails: once all
    // three are refused, QuickJS is about to build its error, and may use the grace.
    if (++this.refusedInRow === 3 && charge.graceLeft < 0)
      charge.graceLeft = Math.max(GRACE, this.heapBytes * 0.06);
    return false;
  }
}
