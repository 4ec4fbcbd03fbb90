// A job picks its model (docs/design/SCALE.md "Who may add jobs"): its `llm` label may name any
// provider the worker can reach, `local/…` included, which needs no key and goes to the worker's
// local model server (LOCAL_LLM_BASE_URL, else 127.0.0.1:11434). Here the "local server" is a
// loopback wire server this test starts; the spell's own model points at nothing (port 9), so
// only the job's label can have reached the server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { evalFolder, startWireServer, THREE_CASES } from "../eval/support/harness.js";
import { RedisServer } from "../support/redis.js";
import {
  cleanupAfterEach,
  NOWHERE,
  QUEUE_NEEDS,
  queueEval,
  workersOn,
} from "./support/queue-scene.js";
import { needs } from "../support/needs.js";

const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS).describe("a job's llm label", { timeout: 180_000 }, () => {
  it("local/MODEL reaches the worker's local model server, no key needed", async () => {
    const redis = await RedisServer.start();
    const server = await startWireServer();
    cleanup.push(() => server.close());
    const dir = evalFolder(THREE_CASES.replace("repeat: 4", "repeat: 1"));
    const workerEnv = { ...NOWHERE, LOCAL_LLM_BASE_URL: `${server.url}/v1` };
    await workersOn(redis, cleanup, 1, [], workerEnv, dir);
    const r = await queueEval(redis.url, "out", dir, ["--llm", "local/wire-model"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(join(dir, "out", "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string; llm?: string });
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.status === "pass")).toBe(true);
    expect((await server.stats()).requests).toBeGreaterThanOrEqual(3);
  });
});
