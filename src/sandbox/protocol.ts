/**
 * What the main thread and a lane's worker thread say to each other (see LIMITS.md, "The sandbox
 * off the main thread"). Plain data only: every message is structured-cloned.
 *
 * The control block is a SharedArrayBuffer both threads see as an Int32Array:
 * - STOP: set by the main thread to stop the running code (the interrupt handler reads it);
 * - REPLY: raised by the main thread once a gate's answer is on the reply port (the worker
 *   waits on it with Atomics.wait, so a gate call is synchronous for QuickJS);
 * - HEAP_PAGES: the lane's heap in 64 KiB pages, written by the worker as it grows;
 * - RETIRE: raised by the worker when its heap should not take new sandboxes (lane-memory.ts);
 * - PHASE: what the worker is doing (idle, running code, rendering its outcome);
 * - UP / DOWN: how many messages the worker / the main thread has posted so far. A side waiting
 *   a short window for the other's next message watches the count, not the port (hot-wait.ts).
 */
import type { SandboxLimits } from "./limits.js";

export const SLOT = {
  STOP: 0,
  REPLY: 1,
  HEAP_PAGES: 2,
  RETIRE: 3,
  PHASE: 4,
  UP: 5,
  DOWN: 6,
} as const;
export const CONTROL_SLOTS = 8;
export const STOP = { NONE: 0, ABORT: 1 } as const;
export const PHASE = { IDLE: 0, RUNNING: 1, RENDERING: 2 } as const;

export interface SandboxSetup {
  gates: readonly string[];
  /** Other names for gates (submit_answer → done). */
  aliases: Readonly<Record<string, string>>;
  /** Names that throw a fixed message (delegation gates warded off at depth 0 — COMP-6). */
  warded: Readonly<Record<string, string>>;
  /** Data injected as variables (circle.state, a child's context). */
  state: Readonly<Record<string, unknown>>;
  limits: SandboxLimits;
  /** Define a read-only `loom` global whose contents are asked of the host when read (LOOM-11). */
  loom?: boolean;
}

/**
 * What a lane's worker is given: all of it when it starts but the compiled module, which comes
 * in the first message (`init`) — a worker boots while the first compile is still running.
 */
export interface LaneData {
  /** The compiled QuickJS module (shared by every lane: a lane instantiates, never compiles). */
  wasmModule: object;
  build: "release" | "debug";
  control: SharedArrayBuffer;
  /** The port gate answers arrive on (read with receiveMessageOnPort while the worker waits). */
  replies: unknown;
  /** The port the worker's messages go out on once it is ready (read synchronously too). */
  up: unknown;
  /** Where QuickJS keeps its interrupt counter, when an earlier lane found it. */
  counterOffset: number | undefined;
}

/** Main thread → worker. */
export type ToLane =
  | { op: "init"; wasmModule: object }
  | { op: "open"; id: number; setup: SandboxSetup }
  | { op: "eval"; id: number; code: string }
  | { op: "dispose"; id: number };

/** A gate's answer as it crosses: primitives as they are, anything else as JSON text. */
export type WireReply =
  | { ok: true; value?: string | number | boolean | null; json?: string; stop?: boolean }
  | { ok: false; message: string; cancelled?: boolean };

/** Worker → main thread. */
export type FromLane =
  | { op: "ready"; counterOffset: number | undefined; thread?: number | undefined }
  | { op: "opened"; id: number; error?: string }
  | { op: "gate"; id: number; name: string; args: unknown[] }
  | { op: "loom"; id: number; known: number }
  | { op: "evaluated"; id: number; output: WireOutput }
  | { op: "fatal"; message: string };

/** A run's outcome as the worker reports it (run.ts EvalOutput). */
export interface WireOutput {
  console: string;
  consoleDropped: number;
  value?: { type: string; size?: number; chars: number; text: string };
  error?: { name: string; message: string; stack: string };
  stopped?: "done" | "max_eval_ms" | "aborted";
  crashed?: boolean;
}

/** A gate's value for the wire: a primitive as it is, anything else as JSON (as the sandbox reads it). */
export function wireValue(value: unknown, stop?: boolean): WireReply {
  const out: WireReply =
    value === undefined ||
    value === null ||
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean"
      ? { ok: true, value }
      : { ok: true, json: toJson(value) };
  if (stop) out.stop = true;
  return out;
}

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}
