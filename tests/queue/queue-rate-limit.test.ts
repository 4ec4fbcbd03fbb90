// A 429 with Retry-After met by one `spell worker` slows every worker: after the 429, no worker
// queries that provider until the Retry-After (3 s) has passed. Two real workers, a real Redis,
// the loopback wire server answering its 3rd request 429.
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  envFor,
  evalFolder,
  runCli,
  startWireServer,
  THREE_CASES,
} from "../eval/support/harness.js";
import { REDIS_MISSING, RedisServer } from "../support/redis.js";
import { startWorker } from "./support/workers.js";

if (REDIS_MISSING) console.log(`skipping: ${REDIS_MISSING}`);
const built = existsSync("dist/spell.cjs");
if (!built) console.log("skipping: the CLI is not built (npm run build)");

const cleanup: (() => Promise<void>)[] = [];
// Stopping workers lets BullMQ close its blocking connections: slow on a loaded machine.
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
}, 60_000);

describe.skipIf(REDIS_MISSING !== undefined || !built)(
  "queue rate limits",
  { timeout: 180_000 },
  () => {
    it("a 429 with Retry-After met by one worker holds every worker's queries", async () => {
      const redis = await RedisServer.start();
      const server = await startWireServer({ rateLimit: [3], retryAfter: 3, delayMs: 20 });
      cleanup.push(() => server.close());
      const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 10"));
      const workers = [1, 2].map(() =>
        startWorker(["--queue", redis.url, "--concurrency", "2"], envFor(server), dir),
      );
      // The workers stop first, while Redis still answers them; then Redis ends.
      cleanup.push(async () => {
        await Promise.all(workers.map((w) => w.stop()));
        await redis.close();
      });
      await Promise.all(workers.map((w) => w.waitFor("waiting for casts")));
      const nowhere = { EVAL_BASE: "http://127.0.0.1:9/v1", EVAL_KEY: "sk-unused-000000" };
      const r = await runCli(
        ["eval", "eval.yaml", "--out", "out", "--queue", redis.url],
        nowhere,
        dir,
      );
      expect(r.code, r.stderr).toBe(0);
      // Both workers ran casts (else one worker alone would prove nothing about sharing).
      for (const w of workers) expect(w.log()).toMatch(/cast done/);
      const log = (await (await fetch(`${server.url}/log`)).json()) as {
        at: number;
        limited: boolean;
      }[];
      const hit = log.findIndex((l) => l.limited);
      expect(hit).toBe(2);
      // After the 429, only queries already past their pause check may still arrive: at most
      // one per other cast running then (2 workers x 2), twice over for a check that raced the
      // pause being set. Every other query waits out the Retry-After (3 s). Unshared, the other
      // worker goes on querying at once (about half the 28 queries left).
      const at = log[hit]!.at;
      const early = log.slice(hit + 1).filter((l) => l.at - at < 2950);
      expect(early.length, JSON.stringify(log.map((l) => l.at - at))).toBeLessThanOrEqual(6);
      expect(log.length - hit - 1, "queries after the 429").toBeGreaterThan(12);
    });
  },
);
