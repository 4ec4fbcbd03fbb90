/**
 * A lane's boot — the second concept that lived in lane.ts: starting the worker thread, handing
 * it its channels (the shared control slots, the reply and up ports) and the compiled QuickJS
 * module, and waiting for its instance to say it is ready. The lane (lane.ts) is what the main
 * thread then holds of a booted worker.
 */
import type * as WorkerThreads from "node:worker_threads";
import type { MessagePort, Worker } from "node:worker_threads";
import { CONTROL_SLOTS, type FromLane, type LaneData, type ToLane } from "./protocol.js";
import { lazyBuiltin } from "../core/builtin.js";

const workerThreads = lazyBuiltin<typeof WorkerThreads>("node:worker_threads");

/** What a lane's worker is started with, besides the channels made here. */
export type BootData = Omit<LaneData, "control" | "replies" | "up" | "wasmModule">;

/** A worker whose module instance is ready, with the main thread's ends of its channels. */
export interface BootedWorker {
  worker: Worker;
  control: SharedArrayBuffer;
  /** Where the main thread posts its replies (the worker waits on them). */
  replies: MessagePort;
  /** Where the worker posts what the main thread may take during a hot window. */
  up: MessagePort;
  /** The worker's thread id, where the host has one to read its CPU time by (thread-cpu.ts). */
  thread: number | undefined;
  counterOffset: number | undefined;
}

/** Starts a worker; the worker boots while `wasmModule` is still being compiled, if it is. */
export function bootWorker(
  file: URL | string,
  data: BootData,
  wasmModule: object | Promise<object>,
): Promise<BootedWorker> {
  const control = new SharedArrayBuffer(CONTROL_SLOTS * 4);
  const threads = workerThreads();
  const { port1, port2 } = new threads.MessageChannel();
  port1.unref();
  const up = new threads.MessageChannel();
  const workerData = { ...data, control, replies: port2, up: up.port2 };
  const worker = new threads.Worker(file, {
    workerData: workerData satisfies Omit<LaneData, "wasmModule">,
    transferList: [port2, up.port2],
    // The parent's flags are not the worker's (`--input-type` of `node -e` would stop it).
    execArgv: [],
    // QuickJS's stack check (max_stack_kb) must fire before the thread's own stack runs out.
    resourceLimits: { stackSizeMb: 16 },
  });
  Promise.resolve(wasmModule).then(
    (compiled) => worker.postMessage({ op: "init", wasmModule: compiled } satisfies ToLane),
    () => void worker.terminate(),
  );
  return new Promise((resolve, reject) => {
    const early = (err: Error) => reject(err);
    worker.once("exit", () => reject(new Error("the sandbox worker exited before it was ready")));
    worker.once("error", early);
    worker.once("message", (m: FromLane) => {
      worker.off("error", early);
      if (m.op !== "ready") {
        void worker.terminate();
        reject(new Error(m.op === "fatal" ? m.message : `unexpected ${m.op}`));
        return;
      }
      const { thread, counterOffset } = m;
      resolve({ worker, control, replies: port1, up: up.port1, thread, counterOffset });
    });
  });
}
