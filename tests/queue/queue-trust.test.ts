// What a job on the queue may make a worker do. Anyone who can write to the Redis can add a
// job, so a worker runs only spells inside its own folder (`--spells DIR`, default: where it was
// started) and records only to its own loom or a loom URL, never to a file a job names. A job
// naming a spell elsewhere comes back errored, naming why, and no model is queried.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { Queue, QueueEvents } from "bullmq";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { envFor, evalFolder, startWireServer, THREE_CASES } from "../eval/support/harness.js";
import { RedisServer } from "../support/redis.js";
import { redisText } from "./support/redis-dump.js";
import { cleanupAfterEach, QUEUE_NEEDS, queueEval, workersOn } from "./support/queue-scene.js";
import { startWorker } from "./support/workers.js";
import { needs } from "../support/needs.js";

const cleanup = cleanupAfterEach();

const rowsOf = (dir: string, out: string) =>
  readFileSync(join(dir, out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { status: string; error?: string });

needs(...QUEUE_NEEDS).describe(
  "what a queued job may make a worker do",
  { timeout: 180_000 },
  () => {
    it("a spell outside the worker's folder is refused; with --spells naming it, it runs", async () => {
      const redis = await RedisServer.start();
      const server = await startWireServer();
      cleanup.push(() => server.close());
      const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 1"));
      const elsewhere = mkdtempSync(join(tmpdir(), "queue-trust-"));

      // Started in another folder: the eval's spell is outside it.
      const [outside] = await workersOn(redis, cleanup, 1, [], envFor(server), elsewhere);
      const refused = await queueEval(redis.url, "refused", dir);
      expect(refused.code, refused.stderr).not.toBe(0);
      const rows = rowsOf(dir, "refused");
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r.status).toBe("error");
        expect(JSON.stringify(r)).toContain("outside the folder this worker runs spells from");
      }
      expect((await server.stats()).requests).toBe(0);
      await outside!.stop();

      // The same worker's folder given with --spells: the same eval runs (the wire is queried).
      const allowed = startWorker(
        ["--queue", redis.url, "--spells", dir],
        envFor(server),
        elsewhere,
      );
      cleanup.push(() => allowed.stop()); // the last pushed stops first: before its Redis
      await allowed.waitFor("waiting for casts");
      const ran = await queueEval(redis.url, "ran", dir);
      expect(ran.code, ran.stderr).toBe(0);
      expect(rowsOf(dir, "ran").every((r) => r.status !== "error")).toBe(true);
      expect((await server.stats()).requests).toBeGreaterThan(0);
    });

    it("a loom file a job names is refused, and nothing is written there", async () => {
      const redis = await RedisServer.start();
      const server = await startWireServer();
      cleanup.push(() => server.close());
      const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 1"));
      await workersOn(redis, cleanup, 1, [], envFor(server), dir);
      const target = join(mkdtempSync(join(tmpdir(), "queue-trust-loom-")), "written.jsonl");
      const r = await queueEval(redis.url, "out", dir, ["--loom", target]);
      expect(r.code, r.stderr).not.toBe(0);
      for (const row of rowsOf(dir, "out"))
        expect(JSON.stringify(row)).toContain("never a file or another database");
      expect(existsSync(target)).toBe(false);
      expect((await server.stats()).requests).toBe(0);
    });

    it("a job naming a file of the folder that is no spell learns nothing of its lines", async () => {
      const redis = await RedisServer.start();
      const dir = mkdtempSync(join(tmpdir(), "queue-trust-file-"));
      // Not a spell: the YAML parser's error would quote its first line.
      const notes = join(dir, "notes.txt");
      writeFileSync(notes, "deploy key PLANTED-line-one\n  indented: PLANTED-value\n");
      const worker = startWorker(["--queue", redis.url], {}, dir);
      const connection = { port: redis.port };
      const queue = new Queue("spellbook-casts", { connection });
      const events = new QueueEvents("spellbook-casts", { connection });
      cleanup.push(async () => {
        await worker.stop();
        await events.close();
        await queue.close();
        await redis.close();
      });
      await worker.waitFor("waiting for casts");
      await events.waitUntilReady();
      // What anyone who can write to the Redis can add: a job naming that file.
      const c = { id: "c1", intent: "hi", expect: [], location: "x:1" };
      const job = await queue.add("cast", {
        spell: notes,
        llm: undefined,
        case: c,
        repeat: 0,
        entityId: "ent_notes_1",
        loom: undefined,
      });
      await expect(job.waitUntilFinished(events)).rejects.toThrow(/did not load on this worker/);
      expect(await redisText(redis.url)).not.toContain("PLANTED");
      // The worker's owner reads why in its log.
      await worker.waitFor(/notes\.txt did not load: .*notes\.txt:\d+:\d+/);
    });
  },
);
