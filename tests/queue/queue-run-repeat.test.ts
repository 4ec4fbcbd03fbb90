// `spell run FILE --repeat K --queue redis://…`: the K casts go to a real Redis, two real
// `spell worker` processes run them, and the run shows the same progress line and prints the same
// summary as the local `--repeat K` of the same spell. The server answers every odd request by
// calling done and every even one with text, so exactly half of each run's casts pass whatever
// order they run in.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../eval/support/harness.js";
import { ADDER_SPELL as SPELL, alternatingWire } from "../support/adder-wire.js";
import { RedisServer } from "../support/redis.js";
import {
  noCli,
  castsDone,
  cleanupAfterEach,
  QUEUE_NEEDS,
  workersOn,
} from "./support/queue-scene.js";
import { stableSummary, stableTable } from "./support/report.js";
import { needs } from "../support/needs.js";

const wire = alternatingWire();
beforeAll(() => wire.start());
afterAll(() => wire.stop());

const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS).describe("spell run --repeat --queue", { timeout: 180_000 }, () => {
  it("runs the K casts on two workers with the same progress and summary as a local --repeat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-repeat-queue-"));
    writeFileSync(join(dir, "adder.yaml"), SPELL);
    const env = { R_BASE: `${wire.origin}/v1`, R_KEY: "sk-test-repeat-000000" };
    const args = ["run", "adder.yaml", "--repeat", "12", "--concurrency", "3"];
    const l = await runCli([...args, "--out", "local"], env, dir);
    expect(l.code, l.stderr).toBe(0);
    expect(wire.requests).toHaveLength(12);

    const redis = await RedisServer.start();
    const workers = await workersOn(redis, cleanup, 2, ["--concurrency", "2"], env, dir);
    // The run itself is pointed at no server (port 9, nothing listens): only workers cast.
    const nowhere = { R_BASE: "http://127.0.0.1:9/v1", R_KEY: "sk-unused-000000" };
    const q = await runCli([...args, "--out", "queued", "--queue", redis.url], nowhere, dir);
    expect(q.code, q.stderr).toBe(0);

    expect(q.stderr).toMatch(/12\/12 casts/); // eval's progress line, as the local run's
    expect(l.stderr).toMatch(/12\/12 casts/);
    // Twelve casts wait on their jobs at once: no warning about the listeners that takes.
    expect(q.stderr).not.toContain("Warning");
    expect(stableSummary(join(dir, "queued"))).toEqual(stableSummary(join(dir, "local")));
    expect(stableTable(q.stdout)).toEqual(stableTable(l.stdout));
    expect(q.stdout).toContain("6/12 passed (50");
    // Every cast ran on a worker: their logs account for all twelve; the server saw twelve more.
    expect(castsDone(workers)).toBe(12);
    expect(wire.requests).toHaveLength(24);
  });
});

needs(noCli).describe("spell run --queue without --repeat", { timeout: 60_000 }, () => {
  it("is a usage error that says --queue goes with --repeat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "run-queue-alone-"));
    writeFileSync(join(dir, "adder.yaml"), SPELL);
    const env = { R_BASE: "http://127.0.0.1:9/v1", R_KEY: "sk-unused-000000" };
    const r = await runCli(["run", "adder.yaml", "--queue", "redis://127.0.0.1:9"], env, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("--queue goes with --repeat K");
  });
});
