// No secret travels in a queued job (docs/design/SCALE.md "What a job carries"): anyone who can
// read the queue's Redis reads every job's data, kept there for a day, so the PostgreSQL loom's
// password never goes in it, in any spelling. A worker connects only with its own `--loom`,
// when the job names that database; any other database a job names is refused.
import { Queue, QueueEvents } from "bullmq";
import { afterEach, expect, it } from "vitest";
import { jobLoom } from "../../src/queue/loom.js";
import { workerLoomFor } from "../../src/queue/trust.js";
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

  it("a worker connects only with its own --loom, and only when the job names that database", () => {
    const own = "postgres://spell:own-pw@db.internal:5432/looms";
    expect(jobLoom(own)).toBe("postgres://spell@db.internal:5432/looms");
    expect(workerLoomFor(jobLoom(own), own)).toBe(own);
    // Another database, user, host or port: refused. A job's URL never reaches `pg`, so neither
    // this password nor PGPASSWORD or ~/.pgpass goes to a host a job names
    // (tests/security/worker-credentials.test.ts: a listener that asks for the password).
    for (const other of [
      "postgres://spell@db.internal:5432/other",
      "postgres://someone@db.internal:5432/looms",
      "postgres://spell@db.elsewhere:5432/looms",
      "postgres://spell@db.internal:6543/looms",
      "postgres://spell@db.internal/looms",
    ])
      expect(() => workerLoomFor(other, own), other).toThrow(/only this worker's own loom/);
    // The same database in another spelling of the scheme or host case: the worker's own URL.
    expect(workerLoomFor("postgresql://spell@DB.internal:5432/looms", own)).toBe(own);
    // No loom named by the job: the worker's own; `memory`: memory.
    expect(workerLoomFor(undefined, own)).toBe(own);
    expect(workerLoomFor(undefined, undefined)).toBe(undefined);
    expect(workerLoomFor("memory", own)).toBe("memory");
    // A worker without a PostgreSQL --loom (a file, memory) takes no job's URL.
    expect(() => workerLoomFor(jobLoom(own), "/var/looms/a.jsonl")).toThrow(/own loom/);
    expect(() => workerLoomFor(jobLoom(own), undefined)).toThrow(/own loom/);
    // A password in the query (libpq's ?password=, ?sslpassword=) goes too; other options stay.
    const query =
      "postgres://spell@db.internal:5432/looms?sslmode=require&password=q&sslpassword=s";
    expect(jobLoom(query)).toBe("postgres://spell@db.internal:5432/looms?sslmode=require");
    expect(workerLoomFor(jobLoom(query), query)).toBe(query);
    // Options that read a file (a CA, a key) are the worker's to give: its --loom's are used,
    // and a job's own options (a host, a key file) are never used.
    const tls =
      "postgres://spell@db.internal:5432/looms?sslmode=verify-full&sslrootcert=/etc/ca.pem";
    expect(jobLoom(tls)).toBe("postgres://spell@db.internal:5432/looms?sslmode=verify-full");
    expect(workerLoomFor(jobLoom(tls), tls)).toBe(tls);
    expect(workerLoomFor(`${jobLoom(own)}?host=evil&sslkey=/dev/zero`, own)).toBe(own);
    // A file stays as it is for the enqueuer; a worker refuses it.
    expect(jobLoom("memory")).toBe("memory");
    expect(() => workerLoomFor("/var/looms/a.jsonl", "/var/looms/a.jsonl")).toThrow(/never a file/);
  });
});
