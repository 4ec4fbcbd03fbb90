// No secret travels in a queued job (docs/design/SCALE.md "What a job carries"): anyone who can
// read the queue's Redis reads every job's data, kept there for a day, so the PostgreSQL loom's
// password never goes in it, in any spelling. A worker connects with its own credentials:
// its own `--loom` when the job names the same database, else PGPASSWORD or ~/.pgpass.
import { Queue, QueueEvents } from "bullmq";
import { afterEach, expect, it } from "vitest";
import { jobLoom, workerLoomFor } from "../../src/queue/loom.js";
import { openRemote } from "../../src/queue/remote.js";
import { encodings, SECRET } from "../support/secret-encodings.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";
import { redisText } from "./support/redis-dump.js";
import { needs } from "../support/needs.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
}, 120_000);

needs(REDIS_MISSING).describe("a queued job carries no loom password", () => {
  it("the job data in Redis holds the loom URL without its password", async () => {
    const redis = await RedisServer.start();
    cleanup.push(() => redis.close());
    const password = encodeURIComponent(SECRET);
    const loom = `postgres://spell:${password}@127.0.0.1:9/looms`;
    const events = new QueueEvents("spellbook-casts", { connection: { port: redis.port } });
    cleanup.push(() => events.close());
    await events.waitUntilReady();
    const added = new Promise<string>((resolve) => events.once("waiting", (e) => resolve(e.jobId)));

    const remote = await openRemote(redis.url, { loom });
    cleanup.push(() => remote.close());
    const spec = {
      spell: "/nowhere/spell.yaml",
      llm: undefined,
      case: { id: "c1", intent: "hi", expect: [], location: "eval.yaml:1" },
      repeat: 0,
    };
    void remote.cast(spec).catch(() => undefined); // no worker: it waits until closed
    const id = await added;

    const queue = new Queue("spellbook-casts", { connection: { port: redis.port } });
    cleanup.push(() => queue.close());
    const job = await queue.getJob(id);
    // The job still names the database: user, host, port and name, without the password.
    expect((job?.data as { loom?: unknown } | undefined)?.loom).toBe(
      "postgres://spell@127.0.0.1:9/looms",
    );
    const stored = await redisText(redis.url);
    expect(stored).toContain("127.0.0.1:9/looms");
    for (const [name, spelling] of Object.entries(encodings(SECRET)))
      expect(stored.includes(spelling), `${name}: ${spelling}`).toBe(false);
  });

  it("a worker connects with its own --loom's password when the job names that database", () => {
    const own = "postgres://spell:own-pw@db.internal:5432/looms";
    expect(jobLoom(own)).toBe("postgres://spell@db.internal:5432/looms");
    expect(workerLoomFor(jobLoom(own), own)).toBe(own);
    // Another database, user or host: the job's URL as it is (PGPASSWORD, ~/.pgpass).
    for (const other of [
      "postgres://spell@db.internal:5432/other",
      "postgres://someone@db.internal:5432/looms",
      "postgres://spell@db.elsewhere:5432/looms",
    ])
      expect(workerLoomFor(other, own)).toBe(other);
    // No loom named by the job: the worker's own.
    expect(workerLoomFor(undefined, own)).toBe(own);
    expect(workerLoomFor(undefined, undefined)).toBe(undefined);
    // The worker's own loom is a file: a job's URL is used as it is.
    expect(workerLoomFor(jobLoom(own), "/var/looms/a.jsonl")).toBe(jobLoom(own));
    // A password in the query (libpq's ?password=, ?sslpassword=) goes too; other options stay.
    const query =
      "postgres://spell@db.internal:5432/looms?sslmode=require&password=q&sslpassword=s";
    expect(jobLoom(query)).toBe("postgres://spell@db.internal:5432/looms?sslmode=require");
    expect(workerLoomFor(jobLoom(query), query)).toBe(query);
    // Options that read a file (a CA, a key) are the worker's to give: its --loom's are used.
    const tls =
      "postgres://spell@db.internal:5432/looms?sslmode=verify-full&sslrootcert=/etc/ca.pem";
    expect(jobLoom(tls)).toBe("postgres://spell@db.internal:5432/looms?sslmode=verify-full");
    expect(workerLoomFor(jobLoom(tls), tls)).toBe(tls);
    // A file or "memory" stays as it is (the worker refuses a file: trust.ts).
    expect(jobLoom("memory")).toBe("memory");
  });
});
