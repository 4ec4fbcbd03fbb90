// Poison jobs (issue 38): anyone who can write to the queue's Redis can add a job with any data.
// A job whose data is not a cast (null, a number, text, a list, fields missing or of the wrong
// kind) fails on its worker with a `queue_job` error saying what is wrong — never a raw
// TypeError — no model is queried for it, and the worker goes on to the next job.
import { join } from "node:path";
import { Queue, QueueEvents } from "bullmq";
import { expect, it } from "vitest";
import { envFor, evalFolder, startWireServer, THREE_CASES } from "../eval/support/harness.js";
import { RedisServer } from "../support/redis.js";
import { needs } from "../support/needs.js";
import { cleanupAfterEach, QUEUE_NEEDS } from "../queue/support/queue-scene.js";
import { startWorker } from "../queue/support/workers.js";

const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS).describe("a poison job on the queue", { timeout: 180_000 }, () => {
  it("fails with a clear queue_job error, queries no model, and the worker keeps going", async () => {
    const redis = await RedisServer.start();
    const server = await startWireServer();
    const dir = evalFolder(THREE_CASES);
    const worker = startWorker(["--queue", redis.url], envFor(server), dir);
    const connection = { port: redis.port };
    const queue = new Queue("spellbook-casts", { connection });
    // From the stream's start: a first read from "$" that goes out late misses a job's end.
    const events = new QueueEvents("spellbook-casts", { connection, lastEventId: "0-0" });
    cleanup.push(async () => {
      await worker.stop();
      await events.close();
      await queue.close();
      await redis.close();
      await server.close();
    });
    await worker.waitFor("waiting for casts");
    await events.waitUntilReady();

    const spell = join(dir, "adder.yaml");
    const good = { id: "c1", intent: "What is 1 + 2?", expect: [{ result: "3" }], location: "x:1" };
    const cast = { spell, case: good, repeat: 0, entityId: "ent_poison_good" };
    const poison: [string, unknown][] = [
      ["null", null],
      ["a number", 42],
      ["text", "a job"],
      ["a list", [spell]],
      ["an empty object", {}],
      ["no case", { ...cast, case: undefined }],
      ["case null", { ...cast, case: null }],
      ["case text", { ...cast, case: "What is 1 + 2?" }],
      ["case a list", { ...cast, case: [good] }],
      ["case without intent", { ...cast, case: { ...good, intent: undefined } }],
      ["intent a number", { ...cast, case: { ...good, intent: 3 } }],
      ["case id null", { ...cast, case: { ...good, id: null } }],
      ["expect null", { ...cast, case: { ...good, expect: null } }],
      ["expect an object", { ...cast, case: { ...good, expect: { result: "3" } } }],
      ["an assertion null", { ...cast, case: { ...good, expect: [null] } }],
      ["intents a list", { ...cast, case: { ...good, intents: ["x"] } }],
      ["intents of numbers", { ...cast, case: { ...good, intents: { [spell]: 7 } } }],
      ["no repeat", { ...cast, repeat: undefined }],
      ["repeat text", { ...cast, repeat: "0" }],
      ["repeat negative", { ...cast, repeat: -1 }],
      ["no entity id", { ...cast, entityId: undefined }],
      ["entity id a number", { ...cast, entityId: 7 }],
      ["entity id an object", { ...cast, entityId: { id: "x" } }],
      ["llm a number", { ...cast, llm: 5 }],
      ["llm an object", { ...cast, llm: { provider: "openai" } }],
      ["loom a list", { ...cast, loom: ["memory"] }],
    ];
    for (const [what, data] of poison) {
      const job = await queue.add("cast", data);
      const failed = await job.waitUntilFinished(events).then(
        () => new Error("the job completed"),
        (err: unknown) => err as Error,
      );
      expect(failed.message, what).toMatch(/^a queued job/);
      expect(failed.message, what).not.toMatch(/TypeError|Cannot read|undefined|is not a function/);
      const stored = await queue.getJob(job.id!);
      expect(stored?.failedReason, what).toBe(failed.message);
    }
    expect((await server.stats()).requests).toBe(0);
    // The worker's owner reads each refusal, with its code, in the log.
    await worker.waitFor(/failed \(queue_job\): a queued job/);

    // The worker is still there: a well-formed job runs, and the model is queried.
    const ok = await queue.add("cast", cast);
    const outcome = (await ok.waitUntilFinished(events)) as { row: { status: string } };
    expect(outcome.row.status).toBe("pass");
    expect((await server.stats()).requests).toBeGreaterThan(0);
    expect(worker.child.exitCode).toBe(null);
  });
});
