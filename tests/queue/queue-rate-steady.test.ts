// A steady per-provider rate kept over every worker: two real workers started with
// `--rate openai=5/s` run 30 one-query casts. The slots are taken on Redis's clock; a query
// arrives at the loopback wire server some time after its slot (its trip, and on a loaded
// machine a late process), so the server's own count allows one window of slack: never more
// than 2 × 5 queries in any 1 s, and the 30 take at least 4 s (5 s at 5/s, less a window).
// Without the shared rate, four casts at once send all 30 in about a second.
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

/** The most arrivals in any window of `ms` starting at an arrival. */
const busiest = (at: number[], ms: number) =>
  Math.max(...at.map((t) => at.filter((u) => u >= t && u < t + ms).length));

describe.skipIf(REDIS_MISSING !== undefined || !built)(
  "a steady rate shared by the workers",
  { timeout: 180_000 },
  () => {
    it("--rate openai=5/s: never more than 5 queries in a window over both workers", async () => {
      const redis = await RedisServer.start();
      const server = await startWireServer();
      cleanup.push(() => server.close());
      const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 10"));
      const args = ["--queue", redis.url, "--concurrency", "2", "--rate", "openai=5/s"];
      const workers = [1, 2].map(() => startWorker(args, envFor(server), dir));
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
      for (const w of workers) expect(w.log()).toMatch(/cast done/);
      const log = (await (await fetch(`${server.url}/log`)).json()) as { at: number }[];
      const at = log.map((l) => l.at).sort((a, b) => a - b);
      expect(at).toHaveLength(30);
      const seen = JSON.stringify(at.map((t) => t - at[0]!));
      expect(busiest(at, 1000), seen).toBeLessThanOrEqual(10);
      expect(at.at(-1)! - at[0]!, seen).toBeGreaterThanOrEqual(4000);
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
  },
);
