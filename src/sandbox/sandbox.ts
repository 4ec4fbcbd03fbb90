import { abortReason } from "../core/cast-signal.js";
import { errorMessage } from "../core/errors.js";
import type { CodeEngine } from "./engine.js";
import type { Lane, LaneClient } from "./lane.js";
import { wireValue, type FromLane, type SandboxSetup, type WireReply } from "./protocol.js";
import { crashOutput, type EvalHooks, type EvalOutput, type GateReply } from "./run.js";
import { Watchdog } from "./watchdog.js";

export type { EvalHooks, EvalOutput, GateReply, ValueView, ErrorView } from "./run.js";
export type { SandboxSetup } from "./protocol.js";

let nextId = 0;

/**
 * One entity's sandbox, as the main thread holds it: the sandbox itself lives in a lane's worker
 * (sandbox-core.ts). The main thread sends code and receives the observation; it answers the
 * code's gate calls, and stops a run by a shared flag — or, when the code does not stop (a deep
 * native operation), by terminating the worker (watchdog.ts). The event loop is never held.
 */
export class Sandbox implements LaneClient {
  private readonly id = nextId++;
  private disposed = false;
  private opening: { resolve(): void; reject(err: Error): void } | undefined;
  /** Settles when the worker has built the sandbox (open). */
  private ready: Promise<void> = Promise.resolve();
  private openError: Error | undefined;
  private current: Watchdog | undefined;
  /** Runs asked for and not yet answered (queued for the lane, opening, or running). */
  private runs = 0;

  private constructor(
    private readonly engine: CodeEngine,
    readonly lane: Lane,
    private readonly evalMs: number,
    private readonly memoryBytes: number,
  ) {
    lane.residentBytes += memoryBytes;
  }

  /**
   * A sandbox in a lane. The worker builds it while the caller goes on: the first run is posted
   * behind it (one round trip less for a new entity); a failure to build is that run's error.
   */
  static async open(engine: CodeEngine, setup: SandboxSetup): Promise<Sandbox> {
    const lane = await engine.acquire();
    const { evalMs, memoryBytes } = setup.limits;
    const sandbox = new Sandbox(engine, lane, evalMs, memoryBytes);
    lane.attach(sandbox.id, sandbox);
    if (lane.dead) {
      sandbox.failed(lane.dead);
      throw lane.dead;
    }
    sandbox.ready = new Promise<void>((resolve, reject) => {
      sandbox.opening = { resolve, reject };
    });
    sandbox.ready.catch((err: Error) => sandbox.failed(err));
    lane.request({ op: "open", id: sandbox.id, setup });
    return sandbox;
  }

  /** The sandbox could not be built: nothing of it is left in its lane. */
  private failed(err: Error): void {
    this.opening = undefined;
    if (this.disposed) return;
    this.disposed = true;
    this.openError = err;
    this.lane.detach(this.id);
    this.lane.residentBytes -= this.memoryBytes;
    this.engine.release(this.lane);
  }

  get alive(): boolean {
    return !this.disposed && !this.lane.dead;
  }

  /**
   * Runs one piece of code to its end, a gate's `stop`, a ward or a cancel. The lane stays held
   * until the worker answered, even when a cancel answered the caller first (watchdog.ts).
   */
  evaluate(code: string, hooks: EvalHooks): Promise<EvalOutput> {
    if (this.openError) return Promise.reject(this.openError);
    if (!this.alive) return Promise.resolve(crashOutput());
    // A run asked for before a dispose is run all the same (queued for the lane, or waiting for
    // the worker to build the sandbox): the sandbox goes once its last run is answered.
    this.runs++;
    return new Promise<EvalOutput>((resolve, reject) => {
      void this.lane.exclusive(async () => {
        try {
          try {
            await this.ready;
          } catch (err) {
            return reject(this.openError ?? new Error(String(err)));
          }
          if (this.lane.dead) return resolve(crashOutput());
          const run = new Watchdog(this.lane, this.evalMs, hooks);
          this.current = run;
          void run.outcome.then((out) => {
            if (out.stopped === "aborted" && out.error?.name === "CancelledError")
              out.error.message = `the run was cancelled (${abortReason(hooks.signal.reason)})`;
            resolve(out);
          });
          this.lane.request({ op: "eval", id: this.id, code });
          await run.settled;
          this.current = undefined;
        } catch (err) {
          // Nothing above throws today; if it ever does, the caller hears of it, never waits.
          this.current = undefined;
          reject(err instanceof Error ? err : new Error(String(err)));
        } finally {
          // The lane was held until the worker answered (which may be after the caller was
          // answered: a cancel); only then may a disposed sandbox go.
          if (--this.runs === 0 && this.disposed && !this.openError) this.release();
        }
      });
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // A run asked for still talks to this sandbox (its gate calls wait for an answer).
    if (this.runs === 0) this.release();
  }

  private release(): void {
    this.lane.detach(this.id);
    this.lane.residentBytes -= this.memoryBytes;
    this.lane.send({ op: "dispose", id: this.id });
    this.engine.release(this.lane);
  }

  receive(message: FromLane): void {
    if (message.op === "opened") {
      this.lane.settled();
      if (message.error) this.opening?.reject(new Error(message.error));
      else this.opening?.resolve();
      this.opening = undefined;
    } else if (message.op === "evaluated") {
      this.lane.settled();
      this.current?.finish(message.output);
    } else if (message.op === "gate") {
      this.gate(message.name, message.args);
    } else if (message.op === "loom") {
      this.answerLoom(message.known);
    }
  }

  lost(cause: Error): void {
    this.opening?.reject(cause);
    this.current?.finish(this.current.lostOutput());
  }

  private hooks(): EvalHooks | undefined {
    return this.current?.hooks;
  }

  /**
   * A gate call of the running code: the worker waits for this answer. A synchronous gate is
   * answered at once, within the lane's window (lane.ts): the worker need not sleep for it.
   */
  private gate(name: string, args: unknown[]): void {
    const run = this.current;
    const hooks = run?.hooks;
    if (!run || !hooks || run.detached) {
      this.lane.answer({ ok: false, message: "cancelled", cancelled: true });
      return;
    }
    run.pause();
    const settle = (reply: GateReply): void => {
      run.resume();
      this.lane.answer(this.wire(reply, hooks.signal));
    };
    let reply: GateReply | Promise<GateReply>;
    try {
      reply = hooks.callGate(name, args);
    } catch (err) {
      reply = { ok: false, message: errorMessage(err) };
    }
    if (reply instanceof Promise)
      reply.then(settle, (err: unknown) => settle({ ok: false, message: errorMessage(err) }));
    else settle(reply);
  }

  /** A gate's reply as the code sees it: a value, an error it may catch, or the end of its run. */
  private wire(reply: GateReply, signal: AbortSignal): WireReply {
    if (signal.aborted) return { ok: false, message: "cancelled", cancelled: true };
    if (!reply.ok) return { ok: false, message: reply.message };
    return wireValue(reply.value, reply.stop);
  }

  private answerLoom(known: number): void {
    const hooks = this.hooks();
    let json = '{"turns":[],"folded_summary":null}';
    try {
      if (hooks?.loom) json = hooks.loom(known);
    } catch {
      // the sandbox sees an empty thread rather than a host error
    }
    this.lane.answer({ ok: true, json });
  }
}
