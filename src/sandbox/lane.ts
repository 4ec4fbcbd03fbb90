/**
 * A lane as the main thread holds it: a worker thread running one instance of the QuickJS
 * module (lane-host.ts) and the sandboxes living in it. The lane runs one evaluation at a time
 * (a FIFO lock); sandboxes that must run at the same time (a batch of children) live in
 * different lanes. Lanes share the compiled WebAssembly.Module: a new lane instantiates it.
 */
import type * as WorkerThreads from "node:worker_threads";
import type { MessagePort, Worker } from "node:worker_threads";
import { SLOT, STOP, type FromLane, type ToLane, type WireReply } from "./protocol.js";
import { bootWorker, type BootData } from "./lane-boot.js";
import { Backoff, mainWindowEnd, spinUntilPast } from "./hot-wait.js";
import { heapBudget } from "./lane-memory.js";
import { ThreadClock } from "./thread-cpu.js";
import { decodeFromLane, encodeReply, encodeToLane } from "./wire.js";
import { lazyBuiltin } from "../core/builtin.js";

const workerThreads = lazyBuiltin<typeof WorkerThreads>("node:worker_threads");

/** What a lane's messages are routed to: the main-thread side of one sandbox (sandbox.ts). */
export interface LaneClient {
  receive(message: FromLane): void;
  /** The worker is gone (a trap, a terminate): nothing in it answers any more. */
  lost(cause: Error): void;
}

export class Lane {
  /** Sandboxes created in this lane and not yet disposed. */
  live = 0;
  /** True while an evaluation holds the lane (it may be waiting on a gate). */
  busy = false;
  /** Set when the worker trapped or was terminated: every sandbox in it is lost. */
  dead: Error | null = null;
  private retired = false;
  private readonly waiting: (() => void)[] = [];
  private readonly clients = new Map<number, LaneClient>();
  private readonly control: Int32Array;
  /** Requests awaiting the worker: while there are any, the worker keeps the process alive. */
  private pending = 0;
  /** The worker's messages taken so far (SLOT.UP counts those it posted). */
  private taken = 0;
  /** The worker waits on a question (a gate call, the loom) the main thread has not answered. */
  private asking = false;
  /** A window is open: what it dispatches does not open another (no recursion). */
  private watching = false;
  private readonly hot = new Backoff();

  private constructor(
    public id: number,
    private readonly worker: Worker,
    control: SharedArrayBuffer,
    private readonly replies: MessagePort,
    private readonly up: MessagePort,
    /** The worker's thread id, where the host has one to read its CPU time by (thread-cpu.ts). */
    readonly thread: number | undefined,
  ) {
    this.control = new Int32Array(control);
    up.on("message", (m: FromLane | string) => this.take(m));
    up.unref();
    worker.on("message", (m: FromLane) => this.dispatch(m));
    worker.on("error", (err) => this.kill(err));
    worker.on("exit", (code) => this.kill(new Error(`the sandbox worker exited (${code})`)));
    worker.unref();
  }

  /**
   * Starts a worker and waits for its module instance (lane-boot.ts); `counterOffset` is learnt
   * by the first. The worker boots while `wasmModule` is still being compiled, if it is.
   */
  static start(
    file: URL | string,
    data: BootData,
    wasmModule: object | Promise<object>,
  ): Promise<{ lane: Lane; counterOffset: number | undefined }> {
    return bootWorker(file, data, wasmModule).then((b) => ({
      lane: new Lane(0, b.worker, b.control, b.replies, b.up, b.thread),
      counterOffset: b.counterOffset,
    }));
  }

  /** The summed max_memory_mb of the sandboxes living in the lane (lane-memory.ts). */
  residentBytes = 0;

  /**
   * Takes no new sandboxes: one ran out of memory (the worker says so), or the heap is bigger
   * than its residents may hold — sandboxes that left grew it, and the space they freed would
   * let a newcomer pass its limit.
   */
  get retiring(): boolean {
    return (
      this.retired ||
      Atomics.load(this.control, SLOT.RETIRE) === 1 ||
      this.heapBytes > heapBudget(this.residentBytes)
    );
  }

  set retiring(value: boolean) {
    this.retired = value;
  }

  /** The lane's heap (the worker's WebAssembly memory), in bytes. */
  get heapBytes(): number {
    return Atomics.load(this.control, SLOT.HEAP_PAGES) * 65536;
  }

  private clock: ThreadClock | undefined;

  /** The worker's CPU time in ms (a reading up to `maxAgeMs` old will do); undefined off Linux. */
  cpuMs(maxAgeMs = 0): number | undefined {
    return (this.clock ??= new ThreadClock(this.thread)).read(maxAgeMs);
  }

  /** True while the worker keeps the process alive (a request is awaiting its answer). */
  get referenced(): boolean {
    return this.pending > 0;
  }

  get phase(): number {
    return Atomics.load(this.control, SLOT.PHASE);
  }

  attach(id: number, client: LaneClient): void {
    this.clients.set(id, client);
  }

  detach(id: number): void {
    this.clients.delete(id);
  }

  /** Sends a message whose answer the worker will post (the worker is kept alive meanwhile). */
  request(message: ToLane): void {
    if (this.pending++ === 0) this.worker.ref();
    this.post(message);
    this.watch();
  }

  /** Sends a message that has no answer. */
  send(message: ToLane): void {
    if (!this.dead) this.post(message);
  }

  private post(message: ToLane): void {
    this.worker.postMessage(encodeToLane(message));
    Atomics.add(this.control, SLOT.DOWN, 1); // after the message: a changed count means it is there
  }

  /**
   * Watches a short window (hot-wait.ts) for the worker's messages and dispatches them as they
   * come, until no request is outstanding, the worker waits on a question the event loop must
   * answer (an async gate), or the window ends; later messages come through the event loop.
   */
  private watch(): void {
    if (this.watching || this.dead || !this.hot.open()) return;
    this.watching = true;
    try {
      while (this.pending > 0 && !this.asking && !this.dead) {
        const end = mainWindowEnd(performance.now());
        if (end <= performance.now()) break; // the event loop's budget is spent
        if (!spinUntilPast(this.control, SLOT.UP, this.taken, end)) {
          this.hot.miss();
          break;
        }
        this.hot.hit();
        const got = workerThreads().receiveMessageOnPort(this.up);
        if (!got) break;
        try {
          this.take(got.message as FromLane | string);
        } catch (err) {
          // As from the port's listener: the error is the process's, not the poster's (whose
          // run would otherwise never settle).
          queueMicrotask(() => {
            throw err;
          });
          break;
        }
      }
    } finally {
      this.watching = false;
    }
  }

  private take(encoded: FromLane | string): void {
    this.taken++;
    const message = decodeFromLane(encoded);
    if (message.op === "gate" || message.op === "loom") this.asking = true;
    this.dispatch(message);
  }

  /** A request was answered (or will never be). */
  settled(): void {
    if (this.pending > 0 && --this.pending === 0) this.worker.unref();
  }

  /** Answers the question the worker is waiting on (a gate call, the loom). */
  answer(reply: WireReply): void {
    this.asking = false;
    if (this.dead) return;
    this.replies.postMessage(encodeReply(reply));
    Atomics.store(this.control, SLOT.REPLY, 1);
    Atomics.notify(this.control, SLOT.REPLY);
    this.watch();
  }

  /** Asks the running code to stop (read by the worker's interrupt handler). */
  stop(): void {
    Atomics.store(this.control, SLOT.STOP, STOP.ABORT);
  }

  /** Runs `fn` with the lane to itself; callers queue in order. A run starts unstopped. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // An idle lane is taken at once; otherwise wait to be handed the lane by its holder.
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    Atomics.store(this.control, SLOT.STOP, STOP.NONE);
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // busy stays true: the lane passes straight to the next in line
      else this.busy = false;
    }
  }

  /** Ends the worker; every sandbox in it hears that it was lost. */
  kill(cause: unknown): void {
    if (this.dead) return;
    this.dead = cause instanceof Error ? cause : new Error(String(cause));
    void this.worker.terminate();
    for (const client of [...this.clients.values()]) client.lost(this.dead);
    this.pending = 0;
  }

  private dispatch(message: FromLane): void {
    if (message.op === "fatal") {
      this.kill(new Error(`the sandbox module trapped: ${message.message}`));
      return;
    }
    if (message.op === "ready") return;
    const client = this.clients.get(message.id);
    if (client) client.receive(message);
    // The answer to a sandbox that left meanwhile (disposed while the worker built it): its
    // request is over all the same, or the worker would keep the process alive.
    else if (message.op === "opened" || message.op === "evaluated") this.settled();
  }
}
