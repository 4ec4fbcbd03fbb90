// The hand-over under a real fault: the worker holding a cast is killed (kill -9) in the cast's
// 2nd LLM call; the other worker continues the cast from its last turn in PostgreSQL. The loom
// has each turn exactly once, sequences 1..3 in order, the intent once.
import { expect, it } from "vitest";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { handoverScene } from "./support/handover.js";
import { cleanupAfterEach, QUEUE_NEEDS } from "./support/queue-scene.js";
import { needs } from "../support/needs.js";

const server = usePostgres();
const cleanup = cleanupAfterEach();

needs(...QUEUE_NEEDS, noPostgres).describe("a worker killed mid-cast", { timeout: 180_000 }, () => {
  it("kill -9: the other worker finishes the cast from its last recorded turn", async () => {
    const s = await handoverScene(await server().createDatabase(), cleanup);
    const gone = new Promise((resolve) => s.first.child.once("exit", resolve));
    s.first.child.kill("SIGKILL"); // only the worker this test started
    await gone;

    const q = await s.evalRun;
    expect(q.code, q.stderr).toBe(0);
    expect(s.second.log()).toMatch(/cast done .*: pass\)/);
    const byEntity = await s.turns();
    expect(byEntity.size).toBe(1);
    const [turns] = [...byEntity.values()];
    expect(turns!.map((t) => t.sequence)).toEqual([1, 2, 3]);
    expect(new Set(turns!.map((t) => t.id)).size).toBe(3);
    expect(turns!.filter((t) => t.metadata["intent"] !== undefined)).toHaveLength(1);
    expect(turns![1]!.parent_id).toBe(turns![0]!.id);
    expect(turns![2]!.parent_id).toBe(turns![1]!.id);
  });
});
