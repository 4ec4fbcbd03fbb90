/**
 * The hand-over fault tests' scene: a real PostgreSQL loom, a real Redis, the loopback wire server
 * holding a cast's 2nd LLM call, a first `spell worker` that takes the cast, then a second one
 * started once the call is held (so the test knows which pid holds the cast: the first).
 */
import { envFor, startWireServer, type CliRun } from "../../eval/support/harness.js";
import { RedisServer } from "../../support/redis.js";
import type { Turn } from "../../../src/loom/records/index.js";
import { loomTurns } from "./loom-turns.js";
import { queueEval as queued, type Cleanup } from "./queue-scene.js";
import { stepperFolder } from "./stepper.js";
import { startWorker, type WorkerProcess } from "./workers.js";

export interface Scene {
  first: WorkerProcess;
  second: WorkerProcess;
  /** The queued eval, running: resolves when its one cast came back. */
  evalRun: Promise<CliRun>;
  /** Queues the same eval again (a new cast, a new entity) and waits for it. */
  evalAgain(): Promise<CliRun>;
  /** Answers the held call (to a socket that may be gone). */
  release(): Promise<void>;
  /** Every turn in the PostgreSQL loom, by entity. */
  turns(): Promise<Map<string, Turn[]>>;
}

export async function handoverScene(databaseUrl: string, cleanup: Cleanup): Promise<Scene> {
  const redis = await RedisServer.start();
  cleanup.push(() => redis.close());
  // 3 turns: two echo calls, then the answer; the cast's 2nd call is held.
  const wire = await startWireServer({ turns: 3, hold: [2] });
  cleanup.push(() => wire.close());
  const held = new Promise<void>((resolve) => {
    let out = "";
    wire.child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("HELD 2")) resolve();
    });
  });
  const dir = stepperFolder("spell-handover-", "handover", [
    '{ name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }',
  ]);
  // Small lock timings, generous for a loaded machine: the lock is renewed every 3 s.
  const args = ["--queue", redis.url, "--loom", databaseUrl];
  const timing = ["--lock-ms", "6000", "--stalled-check-ms", "2000"];
  const worker = () => {
    const w = startWorker([...args, ...timing], envFor(wire), dir);
    cleanup.push(() => w.stop());
    return w;
  };
  const first = worker();
  await first.waitFor("waiting for casts");
  // The eval itself is pointed at no server: only workers cast.
  const queueEval = (out: string) => queued(redis.url, out, dir);
  const evalRun = queueEval("out");
  await held; // the first worker is in the cast's 2nd call: turn 1 is stored
  const second = worker();
  await second.waitFor("waiting for casts");
  return {
    first,
    second,
    evalRun,
    evalAgain: () => queueEval("again"),
    release: async () => void (await fetch(`${wire.url}/release`)).text(),
    turns: () => loomTurns(databaseUrl),
  };
}
