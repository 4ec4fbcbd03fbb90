import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { JsonlStore, Loom, readLoomFile } from "../../src/index.js";
import { readState } from "../../src/loom/entities/index.js";

const run = promisify(execFile);
const WORKER = "tests/support/summon-worker.mjs";
const tempLoom = () => join(mkdtempSync(join(tmpdir(), "concurrent-")), "loom.jsonl");

/** One worker process: summons (or resumes) an entity and sends it `sends` intents. */
function worker(loom: string, sends: number, turns: number, big: number, extra: string[] = []) {
  return run(
    process.execPath,
    [WORKER, loom, String(sends), String(turns), String(big), ...extra],
    {
      encoding: "utf8",
    },
  );
}

/** Resolves once a worker started with `hold` holds its entity. */
function holding(child: ChildProcessWithoutNullStreams): Promise<void> {
  let printed = "";
  return new Promise((resolve) =>
    child.stdout.on("data", (c: Buffer) => {
      printed += c.toString();
      if (printed.includes("holding")) resolve();
    }),
  );
}

describe("several processes appending to one loom (LIMITS.md)", () => {
  it("20 processes at once: no record lost, every thread whole, every entity registered", async () => {
    const loom = tempLoom();
    const SENDS = 4;
    const TURNS = 3;
    // Records of 64 KiB among small ones: far past any pipe's atomic size.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => worker(loom, SENDS, TURNS, i % 2 ? 64 * 1024 : 10)),
    );
    const ids = results.map((r) => r.stdout.trim());
    expect(new Set(ids).size).toBe(20);

    const read = readLoomFile(loom);
    expect(read.torn).toEqual([]);
    expect(read.records.filter((r) => r.type === "loom")).toHaveLength(1);
    const l = new Loom(new JsonlStore(loom));
    expect(l.size).toBe(20 * SENDS * TURNS);
    for (const id of ids) {
      const last = l.lastTurnOf(id)!;
      const thread = l.thread(last.id);
      expect(thread.map((t) => t.sequence)).toEqual(
        Array.from({ length: SENDS * TURNS }, (_, i) => i + 1),
      );
      expect(thread.every((t) => t.entity_id === id)).toBe(true);
      const intents = thread.map((t) => t.metadata["intent"]).filter((x) => x !== undefined);
      expect(intents).toHaveLength(SENDS);
    }
    // The state file took 20 writers' changes, none lost.
    const state = readState(loom);
    expect(Object.keys(state.entities).sort()).toEqual([...ids].sort());
    for (const id of ids)
      expect(state.entities[id]).toMatchObject({
        sends: SENDS,
        last_turn_id: l.lastTurnOf(id)!.id,
      });
  }, 120_000);

  it("one entity resumed by two processes at once: the second is refused (in use by pid N)", async () => {
    const loom = tempLoom();
    const first = await worker(loom, 1, 2, 0);
    const id = first.stdout.trim();
    // The holder keeps the entity until its stdin ends; the other waits 300 ms, then fails.
    const holder = spawn(process.execPath, [WORKER, loom, "1", "2", "0", id, "hold"]);
    await holding(holder);
    const refused = await worker(loom, 1, 2, 0, [id]).then(
      () => null,
      (err: { stderr: string }) => err.stderr,
    );
    expect(refused).toMatch(new RegExp(`entity ${id} of loom .* is in use by pid ${holder.pid}`));
    holder.stdin.end();
    await new Promise((r) => holder.once("exit", r));
    // Let go: the next resume continues the one thread.
    await worker(loom, 1, 2, 0, [id]);
    const l = new Loom(new JsonlStore(loom));
    expect(l.thread(l.lastTurnOf(id)!.id).map((t) => t.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
  }, 120_000);

  it("a lock left by a killed process is taken over", async () => {
    const loom = tempLoom();
    const id = (await worker(loom, 1, 2, 0)).stdout.trim();
    const holder = spawn(process.execPath, [WORKER, loom, "1", "2", "0", id, "hold"]);
    await holding(holder);
    holder.kill("SIGKILL");
    await new Promise((r) => holder.once("exit", r));
    const again = await worker(loom, 1, 2, 0, [id]);
    expect(again.stdout.trim()).toBe(id);
  }, 120_000);
});
