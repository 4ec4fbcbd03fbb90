/**
 * The entry of a lane's worker thread (bundled on its own: dist/sandbox-worker.mjs). The main
 * thread stays free while code runs here: it answers gates, and stops a run through the shared
 * control block or by terminating this thread (LIMITS.md, "The sandbox off the main thread").
 */
import {
  parentPort,
  receiveMessageOnPort,
  workerData,
  type MessagePort,
} from "node:worker_threads";
import { LaneHost, type LaneLink } from "./lane-host.js";
import { SLOT, type FromLane, type LaneData, type ToLane, type WireReply } from "./protocol.js";

const data = workerData as Omit<LaneData, "wasmModule">;
const control = new Int32Array(data.control);
const replies = data.replies as MessagePort;
const port = parentPort!;
/**
 * Checks of the answer flag before the worker sleeps on it (tens of microseconds): most gates
 * answer at once, and an idle core's sleep and wake cost ~50 µs a call (bench/code).
 */
const SPIN = 20_000;

const link: LaneLink = {
  post: (message: FromLane) => port.postMessage(message),
  ask(message: FromLane): WireReply {
    port.postMessage(message);
    // The main thread puts the answer on the port, then raises REPLY: once REPLY is seen, the
    // answer is there. Waiting blocks this thread only; QuickJS sees a synchronous call.
    for (;;) {
      const got = receiveMessageOnPort(replies);
      if (got) return got.message as WireReply;
      // Most gates answer within microseconds: a short spin saves the thread a sleep and wake.
      for (let i = 0; i < SPIN && Atomics.load(control, SLOT.REPLY) === 0; i++);
      Atomics.wait(control, SLOT.REPLY, 0, 1000);
      Atomics.store(control, SLOT.REPLY, 0);
    }
  },
};

try {
  // QuickJS's JavaScript loads while the main thread sends the compiled module.
  const loading = import("quickjs-emscripten");
  const wasmModule = await new Promise<object>((resolve) =>
    port.once("message", (m: ToLane) => resolve(m.op === "init" ? m.wasmModule : {})),
  );
  await loading;
  const host = await LaneHost.create({ ...data, wasmModule }, link);
  port.on("message", (message: ToLane) => {
    const answer = host.handle(message);
    if (answer) port.postMessage(answer);
  });
  port.postMessage({ op: "ready", counterOffset: host.counterOffset } satisfies FromLane);
} catch (err) {
  port.postMessage({
    op: "fatal",
    message: String((err as Error)?.message ?? err),
  } satisfies FromLane);
}
