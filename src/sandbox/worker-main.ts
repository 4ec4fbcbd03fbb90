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
import { Backoff, WINDOW_MS, spinUntilPast } from "./hot-wait.js";
import { LaneHost, type LaneLink } from "./lane-host.js";
import { currentThreadId } from "./thread-cpu.js";
import { SLOT, type FromLane, type LaneData, type ToLane, type WireReply } from "./protocol.js";
import { decodeReply, decodeToLane, encodeFromLane } from "./wire.js";

const data = workerData as Omit<LaneData, "wasmModule">;
const control = new Int32Array(data.control);
const replies = data.replies as MessagePort;
const up = data.up as MessagePort;
const port = parentPort!;

/** Whether the wait for a gate's answer, and for the next message, open a window. */
const replyHot = new Backoff();
const nextHot = new Backoff();

/** Posts to the main thread and counts the message, for a main thread watching in a window. */
function post(message: FromLane): void {
  up.postMessage(encodeFromLane(message));
  Atomics.add(control, SLOT.UP, 1);
}

const link: LaneLink = {
  post,
  ask(message: FromLane): WireReply {
    post(message);
    // The main thread puts the answer on the port, then raises REPLY: once REPLY is seen, the
    // answer is there. Waiting blocks this thread only; QuickJS sees a synchronous call.
    for (;;) {
      const got = receiveMessageOnPort(replies);
      if (got) return decodeReply(got.message as string);
      // Most gates answer within microseconds: a window saves the thread a sleep and wake.
      if (!replyHot.open()) Atomics.wait(control, SLOT.REPLY, 0, 1000);
      else if (spinUntilPast(control, SLOT.REPLY, 0, performance.now() + WINDOW_MS)) replyHot.hit();
      else {
        replyHot.miss();
        Atomics.wait(control, SLOT.REPLY, 0, 1000);
      }
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
  const handle = (message: ToLane) => {
    const answer = host.handle(message);
    if (answer) post(answer);
  };
  let seen = 0;
  port.on("message", (first: ToLane | string) => {
    // After a message, the next one often follows at once (the entity's next run, a dispose):
    // watch for it a window before sleeping in the event loop again (hot-wait.ts).
    for (let message: ToLane | string | undefined = first; message; message = next()) {
      seen++;
      handle(decodeToLane(message));
    }
  });
  /** The main thread's next message, if it comes within a window. */
  const next = (): ToLane | string | undefined => {
    const got = receiveMessageOnPort(port);
    if (got || !nextHot.open()) return got?.message as ToLane | string | undefined;
    if (!spinUntilPast(control, SLOT.DOWN, seen, performance.now() + WINDOW_MS)) {
      nextHot.miss();
      return undefined;
    }
    nextHot.hit();
    return receiveMessageOnPort(port)?.message as ToLane | string | undefined;
  };
  port.postMessage({
    op: "ready",
    counterOffset: host.counterOffset,
    thread: currentThreadId(), // the watchdog reads this thread's CPU time (thread-cpu.ts)
  } satisfies FromLane);
} catch (err) {
  port.postMessage({
    op: "fatal",
    message: String((err as Error)?.message ?? err),
  } satisfies FromLane);
}
