// A gate busy for 5 s does not lose its cast: with a lock of 2 s (renewed every 1 s from the
// worker's event loop), a bash-medium cast whose first command is `sleep 5` stays with the worker
// that took it. The other worker never takes it over: the model is asked twice in all (no turn
// redone), the loom has one entity with turns 1 and 2 once each, one worker finished the cast,
// and no worker logs a refused (fenced) write. Each worker runs a cast of the spell first (into
// another loom): a worker's first cast loads the spell and its modules on the main thread, which
// on a loaded machine (load 25 on 2 cores) can itself outlast a 2 s lock (see SCALE.md).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { envFor, runCli, startWireServer } from "../eval/support/harness.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { RedisServer } from "../support/redis.js";
import { bwrapProblem } from "../../src/circle/mediums/bash/sandbox.js";
import { loomTurns } from "./support/loom-turns.js";
import {
  cleanupAfterEach,
  NOWHERE,
  QUEUE_NEEDS,
  queueEval,
  workersOn,
} from "./support/queue-scene.js";
import { needs } from "../support/needs.js";

const noBwrap = bwrapProblem();

const SPELL = `name: sleeper
llm: { provider: openai, model: wire-model, base_url: "\${env:EVAL_BASE}", api_key: "\${env:EVAL_KEY}" }
identity: { system_prompt: Answer with the number only. }
circle:
  medium: bash
  gates: [done]
  wards: [{ max_turns: 4 }]
`;
const EVAL = `kind: eval
name: busy
spells: [./sleeper.yaml]
cases:
  - { name: A, intent: "What is 1 + 2?", expect: [{ result: "3" }] }
`;
const WARM = EVAL.replace("name: busy", "name: warm").replace("repeat: 1", "") + "repeat: 2\n";

const server = usePostgres();
const cleanup = cleanupAfterEach();

needs(
  ...QUEUE_NEEDS,
  noPostgres,
  noBwrap && `the bash medium cannot run here: ${noBwrap}`,
).describe("a gate busy for 5 s on a queued cast", { timeout: 180_000 }, () => {
  it("keeps its cast: no take-over, each turn once, nothing fenced", async () => {
    const db = await server().createDatabase();
    const redis = await RedisServer.start();
    const wire = await startWireServer({ bash: ["sleep 5", "done 3"] });
    cleanup.push(() => wire.close());
    const dir = mkdtempSync(join(tmpdir(), "spell-busy-gate-"));
    writeFileSync(join(dir, "sleeper.yaml"), SPELL);
    writeFileSync(join(dir, "eval.yaml"), EVAL);
    writeFileSync(join(dir, "warm.yaml"), WARM);
    // One cast at a time each: the two warm-up casts go one to each worker.
    const args = ["--loom", db, "--concurrency", "1"];
    const timing = ["--lock-ms", "2000", "--stalled-check-ms", "1000"];
    const workers = await workersOn(redis, cleanup, 2, [...args, ...timing], envFor(wire), dir);

    const warmDb = await server().createDatabase();
    const queued = ["--queue", redis.url, "--loom", warmDb];
    await runCli(["eval", "warm.yaml", "--out", "warm", ...queued], NOWHERE, dir);
    const logs0 = workers.map((w) => w.log().length);
    const before = (await wire.stats()).requests;
    const r = await queueEval(redis.url, "out", dir);
    const logs = workers.map((w, i) => w.log().slice(logs0[i]));
    expect(r.code, `${r.stderr}\n${logs.join("\n")}`).toBe(0);
    expect(logs.join("\n")).not.toMatch(/fenced|late write|stalled|lock/i);
    expect(logs.map((l) => (l.match(/cast done/g) ?? []).length).sort()).toEqual([0, 1]);
    expect(logs.join("\n")).toMatch(/cast done .*: pass\)/);
    expect((await wire.stats()).requests - before).toBe(2);
    const byEntity = await loomTurns(db);
    expect(byEntity.size).toBe(1);
    const [turns] = [...byEntity.values()];
    expect(turns!.map((t) => t.sequence)).toEqual([1, 2]);
    expect(new Set(turns!.map((t) => t.id)).size).toBe(2);
  });
});
