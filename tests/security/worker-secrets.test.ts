// PROD-8 on a queued cast (issue 38): a `${env:…}` value of the spell and the provider keys in the
// worker's environment (the spell's and another provider's), echoed by the model into its words, a gate's arguments and result, and
// the answer, reach neither the PostgreSQL loom at rest (read back row by row with pg) nor the
// worker's own log (its stdout and stderr), in any spelling. The model is a loopback provider
// this test serves; the worker, Redis and PostgreSQL are real processes on 127.0.0.1.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { expect, it } from "vitest";
import { runCli } from "../eval/support/harness.js";
import { POSTGRES_MISSING, postgresBin, usePostgres } from "../support/postgres.js";
import { startLoopbackProvider, type LoopbackReply } from "../support/providers.js";
import { RedisServer } from "../support/redis.js";
import { needs } from "../support/needs.js";
import { SECRET, encodings, expectClean } from "../support/secret-encodings.js";
import { cleanupAfterEach, NOWHERE, QUEUE_NEEDS } from "../queue/support/queue-scene.js";
import { startWorker } from "../queue/support/workers.js";

const pgServer = usePostgres();
const cleanup = cleanupAfterEach();

/** Provider keys no built-in shape (sk-…, AKIA…) matches: only the worker's redactor knows them. */
const KEY = "wk-Prov1derKey-7f3a9c2e1b5dQx";
/** The key of a provider the spell does not use: in the worker's environment all the same. */
const OTHER_KEY = "wk-0therKey-Zp4u8Lm2Rc6tVb";

const chat = (content: string, call: { name: string; args: unknown }): LoopbackReply => ({
  body: {
    id: "c",
    object: "chat.completion",
    model: "m",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content,
          tool_calls: [
            {
              id: `t-${call.name}`,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 3 },
  },
});

/** Every row of every table of the loom's database, as PostgreSQL prints it. */
async function databaseText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    let text = "";
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(
        `SELECT t::text AS row FROM ${client.escapeIdentifier(name)} t`,
      );
      text += rows.rows.map((r) => `${name}: ${r.row}\n`).join("");
    }
    return text;
  } finally {
    await client.end();
  }
}

/** Every key of the Redis and what it holds (hashes, streams, lists, sets, strings), as text. */
async function redisText(url: string): Promise<string> {
  const { Redis } = await import("ioredis");
  const client = new Redis(url);
  try {
    let text = "";
    for (const key of await client.keys("*")) {
      const type = await client.type(key);
      const value =
        type === "hash"
          ? await client.hgetall(key)
          : type === "stream"
            ? await client.xrange(key, "-", "+")
            : type === "list"
              ? await client.lrange(key, 0, -1)
              : type === "zset"
                ? await client.zrange(key, 0, -1)
                : type === "set"
                  ? await client.smembers(key)
                  : await client.get(key);
      text += `${key}: ${JSON.stringify(value)}\n`;
    }
    return text;
  } finally {
    client.disconnect();
  }
}

needs(...QUEUE_NEEDS, postgresBin ? undefined : POSTGRES_MISSING).describe(
  "a queued cast's secrets",
  { timeout: 180_000 },
  () => {
    it("reach neither the PostgreSQL loom at rest nor the worker's log", async () => {
      const db = await pgServer().createDatabase();
      const redis = await RedisServer.start();
      const both = `key=${KEY} other=${OTHER_KEY} secret=${SECRET}`;
      const model = await startLoopbackProvider([
        chat(`I was told ${both}`, { name: "echo", args: { text: both } }),
        chat(`done with ${both}`, { name: "done", args: { answer: `the answer: ${both}` } }),
      ]);
      const dir = mkdtempSync(join(tmpdir(), "worker-secrets-"));
      writeFileSync(
        join(dir, "leaky.yaml"),
        `name: leaky
llm: { provider: openai, model: m, base_url: "${model.url}/v1" }
identity: { system_prompt: "you know \${env:SPELL_SECRET}" }
circle: { gates: [done, echo], wards: [{ max_turns: 3 }] }
`,
      );
      writeFileSync(
        join(dir, "eval.yaml"),
        `kind: eval
name: leaky
spells: [./leaky.yaml]
cases:
  - { name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }
`,
      );
      const env = { SPELL_SECRET: SECRET, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: OTHER_KEY };
      const worker = startWorker(["--queue", redis.url, "--loom", db], env, dir);
      let stdout = "";
      worker.child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
      cleanup.push(async () => {
        await worker.stop();
        await redis.close();
        await model.close();
      });
      await worker.waitFor("waiting for casts");

      const run = await runCli(
        ["eval", "eval.yaml", "--out", "out", "--queue", redis.url, "--loom", db],
        { ...NOWHERE, ...env },
        dir,
      );
      expect(run.code, run.stderr).not.toBe(0); // the answer is not 3: the case fails
      await worker.waitFor(/cast done .*: fail/);
      expect(model.requests).toHaveLength(2);
      // The model was given the key and the secret: they are real, and they came back.
      expect(model.requests[0]!.headers["authorization"]).toBe(`Bearer ${KEY}`);
      expect(JSON.stringify(model.requests[0]!.body)).toContain(encodings(SECRET).json);

      const atRest = await databaseText(db);
      expect(atRest).toContain("loom_turns: ");
      expect(atRest).toContain("[REDACTED]");
      expect(atRest).toContain("echo"); // the turns are there; only the secrets are not
      for (const key of [KEY, OTHER_KEY]) expect(atRest).not.toContain(key);
      expectClean(atRest, "the PostgreSQL loom");

      // Issue 40 (night): what BullMQ keeps in Redis (a job's return value: the row, whose
      // reason quotes the answer; its events stream) was written unredacted.
      const kept = await redisText(redis.url);
      expect(kept).toContain("[REDACTED]");
      for (const key of [KEY, OTHER_KEY]) expect(kept).not.toContain(key);
      expectClean(kept, "Redis");

      const log = `${worker.log()}\n${stdout}`;
      expect(log).toContain("[REDACTED]"); // the failed case's reason quotes the answer
      for (const key of [KEY, OTHER_KEY]) expect(log).not.toContain(key);
      expectClean(log, "the worker's log");
    });
  },
);
