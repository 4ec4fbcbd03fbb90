// A 429 with Retry-After met by one `spell worker` slows every worker: after the 429, no worker
// queries that provider until the Retry-After (3 s) has passed. Two real workers, a real Redis,
// the loopback wire server answering its 3rd request 429.
import { expect, it } from "vitest";
import { envFor, evalFolder, startWireServer, THREE_CASES } from "../eval/support/harness.js";
import { RedisServer } from "../support/redis.js";
import { cleanupAfterEach, QUEUE_NEEDS, queueEval, workersOn } from "./support/queue-scene.js";
import { needs } from "../support/needs.js";

const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS).describe("queue rate limits", { timeout: 180_000 }, () => {
  it("a 429 with Retry-After met by one worker holds every worker's queries", async () => {
    const redis = await RedisServer.start();
    const server = await startWireServer({ rateLimit: [3], retryAfter: 3, delayMs: 20 });
    cleanup.push(() => server.close());
    const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 10"));
    const workers = await workersOn(redis, cleanup, 2, ["--concurrency", "2"], envFor(server), dir);
    const r = await queueEval(redis.url, "out", dir);
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
});
