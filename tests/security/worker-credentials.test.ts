// A job chooses no host for the worker's PostgreSQL credentials (issue 38). A worker started with
// PGPASSWORD, a password in its own --loom URL, or a ~/.pgpass, given a job whose loom names
// another PostgreSQL host, sent that host the password in clear. Now a worker records only to its
// own --loom (or memory): a job naming another database is refused as an errored row, and the
// other host — a listener this test starts, speaking enough of the protocol to ask for a
// password — receives no password, in any spelling. The worker's own loom still works.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue, QueueEvents } from "bullmq";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { envFor, evalFolder, startWireServer, THREE_CASES } from "../eval/support/harness.js";
import { startPgRecorder, type PgRecorder } from "../support/pg-recorder.js";
import { POSTGRES_MISSING, postgresBin, usePostgres } from "../support/postgres.js";
import { RedisServer } from "../support/redis.js";
import { needs } from "../support/needs.js";
import { cleanupAfterEach, QUEUE_NEEDS, queueEval } from "../queue/support/queue-scene.js";
import { startWorker, type WorkerProcess } from "../queue/support/workers.js";

const pgServer = usePostgres();
const cleanup = cleanupAfterEach();

const ENV_PW = "env-pw-Q7v2KcZ9xw";
const URL_PW = "url-pw-M4t8RbN1ye";
const PGPASS_PW = "pgpass-pw-H3s6LdW0qa";

const rowsOf = (dir: string, out: string) =>
  readFileSync(join(dir, out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { status: string; error?: string });

/** What the listener got holds none of the worker's passwords, in any spelling. */
function expectNoPassword(rec: PgRecorder): void {
  expect(rec.passwords).toEqual([]);
  const bytes = rec.received();
  for (const pw of [ENV_PW, URL_PW, PGPASS_PW])
    for (const form of [pw, Buffer.from(pw).toString("base64"), Buffer.from(pw).toString("hex")])
      expect(bytes.includes(form), form).toBe(false);
}

describe("the password-recording listener (the control)", () => {
  it("records the password a client sends it", async () => {
    const rec = await startPgRecorder();
    try {
      const client = new pg.Client({
        connectionString: `postgres://spell:${URL_PW}@127.0.0.1:${rec.port}/looms`,
      });
      client.on("error", () => undefined);
      await expect(client.connect()).rejects.toThrow(/password authentication failed/);
      expect(rec.startups[0]).toMatchObject({ user: "spell", database: "looms" });
      expect(rec.passwords).toEqual([URL_PW]);
    } finally {
      await rec.close();
    }
  });
});

needs(...QUEUE_NEEDS, postgresBin ? undefined : POSTGRES_MISSING).describe(
  "a job naming another PostgreSQL host",
  { timeout: 240_000 },
  () => {
    /** Redis, the model, the listener, an eval folder, and a worker on the real loom. */
    async function scene(env: Record<string, string>, own: string, home?: string) {
      const redis = await RedisServer.start();
      const wire = await startWireServer();
      const rec = await startPgRecorder();
      const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 1"));
      const worker: WorkerProcess = startWorker(
        ["--queue", redis.url, "--loom", own],
        { ...envFor(wire), ...env, HOME: home ?? dir },
        dir,
      );
      cleanup.push(async () => {
        await worker.stop();
        await Promise.all([redis.close(), wire.close(), rec.close()]);
      });
      await worker.waitFor("waiting for casts");
      return { redis, wire, rec, dir, worker };
    }

    it("PGPASSWORD and the --loom URL's password: refused, no password sent; its own loom runs", async () => {
      const db = await pgServer().createDatabase();
      const own = db.replace("postgres@", `postgres:${URL_PW}@`);
      const s = await scene({ PGPASSWORD: ENV_PW }, own);
      const other = `postgres://postgres@127.0.0.1:${s.rec.port}/looms`;

      // What `spell eval --queue --loom URL` sends: every row errored, naming why.
      const refused = await queueEval(s.redis.url, "refused", s.dir, ["--loom", other]);
      expectNoPassword(s.rec);
      expect(refused.code, refused.stderr).not.toBe(0);
      const rows = rowsOf(s.dir, "refused");
      expect(rows).toHaveLength(3);
      for (const r of rows) {
        expect(r.status).toBe("error");
        expect(JSON.stringify(r)).toContain("a job may name only this worker's own loom");
      }

      // What anyone who can write to the Redis can add: other spellings of another host.
      const connection = { port: s.redis.port };
      const queue = new Queue("spellbook-casts", { connection });
      // From the stream's start: a first read from "$" that goes out late misses a job's end.
      // From the stream's start: a first read from "$" that goes out late misses a job's end.
      const events = new QueueEvents("spellbook-casts", { connection, lastEventId: "0-0" });
      cleanup.push(async () => {
        await events.close();
        await queue.close();
      });
      await events.waitUntilReady();
      const c = { id: "c1", intent: "What is 1 + 2?", expect: [], location: "x:1" };
      const job = (loom: string, n: number) =>
        queue.add("cast", {
          spell: join(s.dir, "adder.yaml"),
          case: c,
          repeat: 0,
          entityId: `ent_creds_${n}`,
          loom,
        });
      /** The status of a job's row, once it finished. */
      const outcome = async (added: ReturnType<typeof job>) =>
        ((await (await added).waitUntilFinished(events)) as { row: { status: string } }).row.status;
      const port = s.rec.port;
      const spellings = [
        `postgresql://postgres@localhost:${port}/looms`,
        `postgres://postgres@127.0.0.1:${port}/looms?sslmode=disable&application_name=x`,
        `postgres://postgres:${encodeURIComponent("job-pw")}@127.0.0.1:${port}/looms`,
        `postgres://someone@127.0.0.1:${port}/looms`,
        // The worker's own database, another user: still not the worker's loom.
        db.replace("postgres@", "spell@"),
      ];
      for (const [i, loom] of spellings.entries())
        await expect(
          job(loom, i).then((j) => j.waitUntilFinished(events)),
          loom,
        ).rejects.toThrow(/a job may name only this worker's own loom/);
      expect(s.rec.connections).toBe(0);
      expectNoPassword(s.rec);
      expect((await s.wire.stats()).requests).toBe(0);
      // The worker's log names each refusal, without its passwords.
      await s.worker.waitFor(/failed \(queue_job\): the job names the loom/);
      for (const pw of [ENV_PW, URL_PW]) expect(s.worker.log()).not.toContain(pw);

      // The worker's own database named, without the password as jobs carry it: the worker
      // records there with its own URL — also when the job adds options pointing at the listener.
      const ran = await queueEval(s.redis.url, "ran", s.dir, ["--loom", db]);
      expect(ran.code, ran.stderr).toBe(0);
      const pointed = job(`${db}?host=127.0.0.1&port=${port}&sslmode=disable`, 50);
      expect(await outcome(pointed)).not.toBe("error");
      expect(rowsOf(s.dir, "ran").every((r) => r.status === "pass")).toBe(true);
      const client = new pg.Client({ connectionString: db });
      await client.connect();
      try {
        const turns = await client.query<{ n: string }>("SELECT count(*) AS n FROM loom_turns");
        expect(Number(turns.rows[0]!.n)).toBeGreaterThanOrEqual(3);
      } finally {
        await client.end();
      }
      expect(s.rec.connections).toBe(0);

      // `memory` is in memory: no file of that name appears where the worker runs.
      expect(await outcome(job("memory", 99))).not.toBe("error");
      expect(existsSync(join(s.dir, "memory"))).toBe(false);
    });

    it("~/.pgpass: refused, no password sent", async () => {
      const db = await pgServer().createDatabase();
      const home = mkdtempSync(join(tmpdir(), "worker-pgpass-"));
      writeFileSync(join(home, ".pgpass"), `*:*:*:*:${PGPASS_PW}\n`, { mode: 0o600 });
      const s = await scene({}, db, home);
      const other = `postgres://postgres@127.0.0.1:${s.rec.port}/looms`;
      const refused = await queueEval(s.redis.url, "refused", s.dir, ["--loom", other]);
      expectNoPassword(s.rec);
      expect(refused.code, refused.stderr).not.toBe(0);
      for (const r of rowsOf(s.dir, "refused")) {
        expect(r.status).toBe("error");
        expect(JSON.stringify(r)).toContain("a job may name only this worker's own loom");
      }
      expect(s.rec.connections).toBe(0);
      expectNoPassword(s.rec);
    });
  },
);
