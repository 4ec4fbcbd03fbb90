import type { QuickJSAsyncWASMModule } from "quickjs-emscripten";

/**
 * One instance of the asyncify QuickJS module. An asyncified module can suspend only one call
 * stack at a time, so a lane runs one evaluation at a time (a FIFO lock); sandboxes that must
 * run at the same time (a batch of children) live in different lanes. Lanes share the compiled
 * WebAssembly.Module: a new lane costs an instantiation (~2 ms), never a compile.
 */
export class Lane<Spare = unknown> {
  /** Sandboxes created in this lane and not yet disposed. */
  live = 0;
  /** True while an evaluation holds the lane (it may be suspended in a host gate). */
  busy = false;
  /** Set when the module aborted (a wasm trap): every sandbox in it is lost. */
  dead: Error | null = null;
  /**
   * Set when a sandbox of this lane ran out of memory: QuickJS may then leak objects, and freeing
   * that runtime would abort the module. The lane takes no new sandboxes and is dropped, whole,
   * when its last sandbox is gone; the others in it run on unharmed.
   */
  retiring = false;
  /** A ready shell for the next sandbox of this lane (see shell.ts). */
  spare: Spare | undefined;
  spareScheduled = false;
  private readonly waiting: (() => void)[] = [];
  private stackBuffer = 0;

  constructor(
    readonly id: number,
    readonly module: QuickJSAsyncWASMModule,
    private readonly asyncifyStackKey: string | undefined,
  ) {
    tolerateLateHostRefRelease(module);
  }

  /** Runs `fn` with the lane to itself; callers queue in order. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // An idle lane is taken at once; otherwise wait to be handed the lane by its holder.
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // busy stays true: the lane passes straight to the next in line
      else this.busy = false;
    }
  }

  /**
   * QuickJS's setMaxStackSize also sets the module-wide asyncify buffer to the same size, but
   * unwinding a stack needs about 1.5× the bytes QuickJS counts: a gate called near the stack
   * limit would overflow the buffer and abort the module. Keep the buffer at twice the largest
   * stack limit of any runtime in the lane (call after every setMaxStackSize).
   */
  reserveStack(stackBytes: number): void {
    this.stackBuffer = Math.max(this.stackBuffer, stackBytes * 2);
    const asyncify = (this.module as unknown as { module?: { Asyncify?: Record<string, unknown> } })
      .module?.Asyncify;
    if (asyncify && this.asyncifyStackKey) asyncify[this.asyncifyStackKey] = this.stackBuffer;
  }

  kill(cause: unknown): void {
    if (this.dead) return;
    this.dead = cause instanceof Error ? cause : new Error(String(cause));
  }
}

/**
 * quickjs-emscripten 0.32 forgets a runtime's callbacks before it frees the runtime, so a host
 * function that only the runtime's final garbage collection frees (any function reachable from
 * a global: it holds its realm) makes the release callback throw inside JS_FreeRuntime, which
 * leaves the runtime half-freed. The refs it cannot find belong to that runtime and die with it:
 * ignore the miss. Patched once per module instance.
 */
function tolerateLateHostRefRelease(module: QuickJSAsyncWASMModule): void {
  const callbacks = (module as unknown as { module?: { callbacks?: Record<string, unknown> } })
    .module?.callbacks;
  const release = callbacks?.["freeHostRef"];
  if (!callbacks || typeof release !== "function") return;
  callbacks["freeHostRef"] = (...args: unknown[]): void => {
    try {
      (release as (...a: unknown[]) => void)(...args);
    } catch {
      // the runtime is being freed; its host refs go with it
    }
  };
}
