/**
 * A lane as its worker thread holds it: one instance of the QuickJS module, its heap (with the
 * memory ward) and the sandboxes living in it. Driven by messages from the main thread (lane.ts)
 * one at a time; a gate call of the running code is a question the worker waits on (`ask`).
 * Usable in any thread: worker-main.ts runs it in a worker, a test or benchmark may run it inline.
 */
import type { QuickJSWASMModule } from "quickjs-emscripten";
import { findCounterOffset } from "./interrupt-pace.js";
import { LaneMemory } from "./lane-memory.js";
import {
  PHASE,
  SLOT,
  type FromLane,
  type LaneData,
  type ToLane,
  type WireOutput,
  type WireReply,
} from "./protocol.js";
import { crashOutput } from "./run.js";
import { SandboxCore, type CoreLane } from "./sandbox-core.js";
import type { Shell } from "./shell.js";

/** How a lane reaches the main thread. */
export interface LaneLink {
  post(message: FromLane): void;
  /** Posts a question and waits (blocking the thread) for its answer. */
  ask(message: FromLane): WireReply;
}

export class LaneHost implements CoreLane {
  spare: Shell | undefined;
  spareScheduled = false;
  closed = false;
  /** Set when the module trapped: nothing in it can run again. */
  dead = false;
  private readonly sandboxes = new Map<number, SandboxCore>();

  private constructor(
    readonly module: QuickJSWASMModule,
    readonly memory: LaneMemory,
    readonly counterOffset: number | undefined,
    private readonly control: Int32Array,
    private readonly link: LaneLink,
  ) {}

  static async create(data: LaneData, link: LaneLink): Promise<LaneHost> {
    const control = new Int32Array(data.control);
    const memory = new LaneMemory((bytes) =>
      Atomics.store(control, SLOT.HEAP_PAGES, bytes / 65536),
    );
    const quickjs = await import("quickjs-emscripten");
    // The debug build reports every refused growth; pinning the heap (below) refuses on purpose.
    let pinning = true;
    const printErr = (text: string) => void (pinning || process.stderr.write(`${text}\n`));
    const options = {
      wasmModule: data.wasmModule,
      wasmMemory: memory.memory as never,
      emscriptenModule: { printErr } as never,
    };
    // The debug build is the asyncify one, called synchronously (it never suspends here): the
    // debug sync build carries a leak sanitizer that allocates from the heap the ward holds.
    const module: QuickJSWASMModule =
      data.build === "debug"
        ? await quickjs.newQuickJSAsyncWASMModuleFromVariant(
            quickjs.newVariant(quickjs.DEBUG_ASYNC, options),
          )
        : await quickjs.newQuickJSWASMModuleFromVariant(
            quickjs.newVariant(quickjs.RELEASE_SYNC, options),
          );
    tolerateLateHostRefRelease(module);
    memory.pinInitialHeap(
      (module as unknown as { module: Parameters<LaneMemory["pinInitialHeap"]>[0] }).module,
    );
    pinning = false;
    const offset = data.counterOffset ?? findCounterOffset(module, memory.memory);
    return new LaneHost(module, memory, offset, control, link);
  }

  /** One message of the main thread; its answer, if it has one. */
  handle(message: ToLane): FromLane | undefined {
    if (message.op === "open") {
      try {
        this.sandboxes.set(message.id, new SandboxCore(message.id, this, message.setup));
        return { op: "opened", id: message.id };
      } catch (err) {
        return { op: "opened", id: message.id, error: String((err as Error)?.message ?? err) };
      }
    }
    if (message.op === "eval")
      return { op: "evaluated", id: message.id, output: this.eval(message.id, message.code) };
    if (message.op === "init") return undefined; // the worker's start took it (worker-main.ts)
    const sandbox = this.sandboxes.get(message.id);
    this.sandboxes.delete(message.id);
    if (sandbox && !this.dead) this.guard(() => sandbox.dispose());
    return undefined;
  }

  private eval(id: number, code: string): WireOutput {
    const sandbox = this.sandboxes.get(id);
    if (!sandbox || this.dead) return crashOutput();
    Atomics.store(this.control, SLOT.PHASE, PHASE.RUNNING);
    try {
      return this.guard(() => sandbox.evaluate(code)) ?? crashOutput();
    } finally {
      Atomics.store(this.control, SLOT.PHASE, PHASE.IDLE);
    }
  }

  /** A trap of the module itself (never a JS exception of the code): the lane is gone. */
  private guard<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.dead = true;
      this.closed = true;
      this.link.post({ op: "fatal", message: String((err as Error)?.message ?? err) });
      return undefined;
    }
  }

  gate(id: number, name: string, args: unknown[]): WireReply {
    return this.link.ask({ op: "gate", id, name, args });
  }

  loom(id: number, known: number): string {
    const reply = this.link.ask({ op: "loom", id, known });
    return reply.ok && typeof reply.json === "string"
      ? reply.json
      : '{"turns":[],"folded_summary":null}';
  }

  stopRequested(): boolean {
    return Atomics.load(this.control, SLOT.STOP) !== 0;
  }

  rendering(): void {
    Atomics.store(this.control, SLOT.PHASE, PHASE.RENDERING);
  }

  retire(): void {
    this.closed = true;
    this.spare = undefined;
    Atomics.store(this.control, SLOT.RETIRE, 1);
  }
}

/**
 * quickjs-emscripten 0.32 forgets a runtime's callbacks before it frees the runtime, so a host
 * function that only the runtime's final garbage collection frees (any function reachable from
 * a global: it holds its realm) makes the release callback throw inside JS_FreeRuntime, which
 * leaves the runtime half-freed. The refs it cannot find belong to that runtime and die with it:
 * ignore the miss. Patched once per module instance.
 */
function tolerateLateHostRefRelease(module: QuickJSWASMModule): void {
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
