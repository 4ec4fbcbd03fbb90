// `spell view` on a big loom (issue 40): the server listens at once and reads the loom in the
// background, a slice of the event loop at a time. What is read that way must be the index a
// whole read gives — turns in order, entities and their sums, forks, folds, rewards — also when
// turns land while it reads, and the server's answers once it is done are the saved page's.
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LoomViewerIndex } from "../../src/loom/viewer/index.js";
import { staticData } from "../../src/protocols/viewer/static-data.js";
import { startViewer } from "../support/view.js";

const dir = mkdtempSync(join(tmpdir(), "view-index-bg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Turns `from`..`to` of a long thread, a fork every 500 turns, a fold and a reward now and then. */
function records(from: number, to: number): string {
  const out: string[] = [];
  if (from === 1) out.push(JSON.stringify({ type: "loom", version: 2, created: "2026-12-05" }));
  for (let i = from; i <= to; i++) {
    const turn = (id: string, parent: string | null, entity: string, extra = {}) =>
      JSON.stringify({
        type: "turn",
        id,
        parent_id: parent,
        cantrip_id: "c",
        entity_id: entity,
        role: "turn",
        sequence: i,
        utterance: `step ${i}: reading the next file and noting what it says`,
        observation: `read: contents of file ${i}`,
        gate_calls: [
          { gate_name: "read", arguments: `{"path":"f${i}"}`, result: "x", is_error: i % 97 === 0 },
        ],
        metadata: {
          tokens_prompt: 100 + i,
          tokens_completion: 7,
          tokens_cached: 0,
          duration_ms: 3,
          timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString(),
          ...(i === 1 ? { intent: "the long thread" } : {}),
        },
        reward: null,
        terminated: false,
        truncated: false,
        reason: null,
        ...extra,
      });
    out.push(turn(`t${i}`, i === 1 ? null : `t${i - 1}`, "ent_long"));
    if (i % 500 === 0)
      out.push(
        turn(`f${i}`, `t${i}`, `ent_fork_${i}`, {
          metadata: { intent: `fork at ${i}`, fork: { from_turn: `t${i}`, strategy: "fork" } },
        }),
      );
    if (i % 1000 === 0) {
      out.push(
        JSON.stringify({
          type: "fold",
          id: `fold_${i}`,
          cantrip_id: "c",
          entity_id: "ent_long",
          role: "fold",
          from_sequence: i - 999,
          to_sequence: i - 500,
          from_turn_id: `t${i - 999}`,
          to_turn_id: `t${i - 500}`,
          summary: `turns ${i - 999} to ${i - 500}`,
          strategy: "summary",
          estimated_tokens: 40,
          timestamp: "2026-12-05T07:00:00.000Z",
        }),
      );
      out.push(
        JSON.stringify({
          type: "reward",
          turn_id: `t${i - 1}`,
          reward: i / 1e4,
          timestamp: "2026-12-05T07:00:00.000Z",
        }),
      );
    }
  }
  return `${out.join("\n")}\n`;
}

/** What an index knows, as plain values (to compare two). */
function known(index: LoomViewerIndex) {
  return {
    order: [...index.order],
    turns: [...index.turns.values()],
    entities: [...index.entities.values()],
    children: [...index.children.entries()],
    folds: [...index.folds],
    problem: index.problem,
  };
}

function wholeRead(path: string): LoomViewerIndex {
  const index = new LoomViewerIndex(path);
  index.refresh();
  return index;
}

describe("a big loom read in the background", () => {
  const path = join(dir, "big.jsonl");
  writeFileSync(path, records(1, 8000));

  it("the file is several slices' worth (more than a look reads at once)", () => {
    expect(statSync(path).size).toBeGreaterThan(3 << 20);
  });

  it("a look returns before reading; the index then fills in to what a whole read gives", async () => {
    const index = new LoomViewerIndex(path);
    index.look();
    expect(index.reading).toBe(true);
    expect(index.order).toHaveLength(0);
    const versions = new Set<number>();
    const seen = (async () => {
      while (index.reading) {
        versions.add(index.version);
        await new Promise((r) => setImmediate(r));
      }
    })();
    await index.whenRead();
    await seen;
    expect(index.reading).toBe(false);
    // The event loop turned while it read: more than one partial state was there to be seen.
    expect(versions.size).toBeGreaterThan(1);
    expect(known(index)).toEqual(known(wholeRead(path)));
    expect(index.readTurn("t8000")).toMatchObject({ id: "t8000", sequence: 8000 });
    expect(index.turns.get("t999")?.reward).toBe(0.1);
  });

  it("turns appended while it reads are read too, in order", async () => {
    const grown = join(dir, "grown.jsonl");
    writeFileSync(grown, records(1, 8000));
    const index = new LoomViewerIndex(grown);
    index.look();
    // Appended once the reading has begun (after its first slice).
    await new Promise((r) => setImmediate(r));
    expect(index.reading).toBe(true);
    expect(index.order.length).toBeGreaterThan(0);
    appendFileSync(grown, records(8001, 9000));
    await index.whenRead();
    index.look(); // anything left after the background reading ended
    await index.whenRead();
    expect(index.order).toHaveLength(9000 + 18);
    expect(known(index)).toEqual(known(wholeRead(grown)));
  });

  it("a look at a little appended reads it before it returns (a running cast's turns)", () => {
    const small = join(dir, "small.jsonl");
    writeFileSync(small, records(1, 100));
    const index = new LoomViewerIndex(small);
    index.look();
    expect(index.reading).toBe(false);
    expect(index.order).toHaveLength(100);
    appendFileSync(small, records(101, 120));
    index.look();
    expect(index.order).toHaveLength(120);
  });

  it("the server, once it has read the loom in the background, answers as the saved page does", async () => {
    const viewer = await startViewer(path);
    try {
      type Answer = { reading: boolean; turns: number; total: number; rows: unknown[] };
      const get = async (p: string) => (await (await fetch(`${viewer.base}${p}`)).json()) as Answer;
      let stat = await get("/api/l/0/stat");
      while (stat.reading) stat = await get("/api/l/0/stat");
      const saved = JSON.parse(await staticData(wholeRead(path), "big.jsonl", (t) => t)) as Record<
        string,
        Answer
      >;
      expect(stat.turns).toBe(saved["/api/l/0/stat"]!.turns);
      const entities = await get("/api/l/0/entities?limit=1000");
      expect(entities.rows).toEqual(saved["/api/l/0/entities"]!.rows);
      const rows = await get("/api/l/0/e/ent_long/rows?offset=7000&limit=1000");
      const whole = saved["/api/l/0/e/ent_long/rows"]!;
      expect(rows.total).toBe(whole.total);
      expect(rows.rows).toEqual(whole.rows.slice(7000, 8000));
    } finally {
      await viewer.app.close();
    }
  });
});
