// A steady per-provider rate kept over every worker: two real workers started with
// `--rate openai=5/s` run 30 one-query casts, four at once. The loopback wire server notes when
// each query arrives: no window of 1 s starting at an arrival holds more than 5 of them, however
// late a query arrives after its slot (a slot counts until a window after the query's answer).
// The property is the whole check: no figure of how fast the machine is. Without the shared
// rate, four casts at once send all 30 in about a second.
import { expect, it } from "vitest";
import { envFor, evalFolder, startWireServer, THREE_CASES } from "../eval/support/harness.js";
import { RedisServer } from "../support/redis.js";
import { cleanupAfterEach, QUEUE_NEEDS, queueEval, workersOn } from "./support/queue-scene.js";
import { startWorker } from "./support/workers.js";
import { needs } from "../support/needs.js";

const cleanup = cleanupAfterEach();

/** The most arrivals in any window of `ms` starting at an arrival. */
const busiest = (at: number[], ms: number) =>
  Math.max(...at.map((t) => at.filter((u) => u >= t && u < t + ms).length));

needs(...QUEUE_NEEDS).describe("a steady rate shared by the workers", { timeout: 180_000 }, () => {
  it("--rate openai=5/s: the provider never sees 6 queries in a second over both workers", async () => {
    const redis = await RedisServer.start();
    const server = await startWireServer();
    cleanup.push(() => server.close());
    const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 10"));
    const args = ["--concurrency", "2", "--rate", "openai=5/s"];
    const workers = await workersOn(redis, cleanup, 2, args, envFor(server), dir);
    const r = await queueEval(redis.url, "out", dir);
    expect(r.code, r.stderr).toBe(0);
    for (const w of workers) expect(w.log()).toMatch(/cast done/);
    const log = (await (await fetch(`${server.url}/log`)).json()) as { at: number }[];
    const at = log.map((l) => l.at).sort((a, b) => a - b);
    expect(at).toHaveLength(30);
    const seen = JSON.stringify(at.map((t) => t - at[0]!));
    expect(busiest(at, 1000), seen).toBeLessThanOrEqual(5);
    console.log(
      `rate 5/s: busiest 1 s window ${busiest(at, 1000)}; 30 queries in ${at.at(-1)! - at[0]!} ms`,
    );
  });

  it("--rate that is not PROVIDER=N/s is refused at start, naming the form", async () => {
    const redis = await RedisServer.start();
    cleanup.push(() => redis.close());
    const w = startWorker(["--queue", redis.url, "--rate", "openai=fast"], {}, process.cwd());
    const code = await new Promise((resolve) => w.child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(w.log()).toMatch(/--rate openai=fast: write PROVIDER=N\/s/);
  });
});
