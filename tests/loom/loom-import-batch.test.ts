/**
 * `spell loom import FILE --to postgres://…` in batches (one transaction per IMPORT_BATCH
 * records of src/loom/postgres/postgres-records.ts): an import killed mid-way (kill -9 of a real CLI)
 * leaves whole batches, in file order, and importing again completes it and then adds nothing;
 * a turn at a place another turn holds (a duplicate in the middle) ends the import with every
 * record before it stored and none after. Real PostgreSQL (tests/support/postgres.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, expect, it } from "vitest";
import { loomExportCommand } from "../../src/cli/loom-export.js";
import { loomImportCommand } from "../../src/cli/loom-import.js";
import { io } from "../support/io.js";
import { noPostgres, usePostgres } from "../support/postgres.js";
import { needs } from "../support/needs.js";

const server = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "loom-import-batch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** src/loom/postgres/postgres-records.ts IMPORT_BATCH. */
const BATCH = 500;

const turn = (entity: number, seq: number, id = `t${entity}_${seq}`) => ({
  type: "turn",
  id,
  parent_id: seq > 1 ? `t${entity}_${seq - 1}` : null,
  cantrip_id: "c1",
  entity_id: `e${entity}`,
  role: "turn",
  sequence: seq,
  utterance: `utterance ${entity}/${seq} `.repeat(8),
  observation: `observation ${entity}/${seq}`,
  gate_calls: [],
  metadata: { tokens_prompt: 1, tokens_completion: 1, tokens_cached: 0, duration_ms: 1 },
  reward: null,
  terminated: false,
  truncated: false,
  reason: null,
});

/** A loom file of `records` records: 50-turn entities, a reward after every 10th turn. */
function loomFile(name: string, records: number, change?: (i: number) => object | undefined) {
  const out: object[] = [];
  for (let i = 0; out.length < records; i++) {
    const t = turn(Math.floor(i / 50), (i % 50) + 1);
    out.push(change?.(out.length) ?? t);
    if (i % 10 === 9 && out.length < records)
      out.push({ type: "reward", turn_id: t.id, reward: 1, timestamp: "2026-11-26T00:00:00Z" });
  }
  const path = join(dir, name);
  const header = { type: "loom", version: 3, created: "2026-11-26T00:00:00Z" };
  writeFileSync(path, [header, ...out].map((r) => `${JSON.stringify(r)}\n`).join(""));
  return { path, records: out.map((r) => JSON.stringify(r)) };
}

/** The PostgreSQL loom's records, in order, as JSON text (an export without redaction). */
async function stored(url: string): Promise<string[]> {
  const out = io();
  expect(await loomExportCommand(url, { redact: false }, out), out.err).toBe(0);
  return out.out === "" ? [] : out.out.trim().split("\n");
}

async function countTurns(url: string): Promise<number> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client
      .query<{ n: number }>("SELECT count(*)::int AS n FROM loom_turns")
      .catch(() => ({ rows: [{ n: 0 }] })); // the schema is not there yet
    return r.rows[0]!.n;
  } finally {
    await client.end();
  }
}

needs(noPostgres).describe("spell loom import in batches", () => {
  it("killed mid-way leaves whole batches in file order; importing again completes it, then adds nothing", async () => {
    const { path, records } = loomFile("big.jsonl", 40 * BATCH + 123);
    const url = await server().createDatabase();
    const child = spawn(process.execPath, ["bin/run.js", "loom", "import", path, "--to", url], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let running = true;
    void exited.then(() => (running = false));
    while (running && (await countTurns(url)) === 0) await sleep(10);
    expect(running, `the import ended before it could be killed: ${err}`).toBe(true);
    child.kill("SIGKILL");
    await exited;

    const partial = await stored(url);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(records.length);
    expect(partial.length % BATCH).toBe(0); // whole batches, never a part of one
    expect(partial.map((r) => JSON.parse(r) as unknown)).toEqual(
      records.slice(0, partial.length).map((r) => JSON.parse(r) as unknown),
    );

    const again = io();
    expect(await loomImportCommand(path, { to: url }, again), again.err).toBe(0);
    const added = records.length - partial.length;
    expect(again.out).toContain(`imported ${records.length} records (${added} new)`);
    const third = io();
    expect(await loomImportCommand(path, { to: url }, third), third.err).toBe(0);
    expect(third.out).toContain(`imported ${records.length} records (0 new)`);
    const all = await stored(url);
    expect(all.map((r) => JSON.parse(r) as unknown)).toEqual(
      records.map((r) => JSON.parse(r) as unknown),
    );
  }, 180_000);

  it("a turn at a place another turn holds, mid-batch, ends the import after every record before it", async () => {
    // Record 3 batches + 7 in: entity 0's sequence 2 again, under another id (a late writer's).
    const at = 3 * BATCH + 7;
    const { path, records } = loomFile("fenced.jsonl", 5 * BATCH, (i) =>
      i === at ? turn(0, 2, "t_intruder") : undefined,
    );
    const url = await server().createDatabase();
    for (const round of [1, 2]) {
      const out = io();
      expect(await loomImportCommand(path, { to: url }, out)).not.toBe(0);
      expect(out.err).toMatch(
        /turn t_intruder refused: entity e0 already has a turn at sequence 2/,
      );
      const rows = await stored(url);
      expect(
        rows.map((r) => JSON.parse(r) as unknown),
        `round ${round}`,
      ).toEqual(records.slice(0, at).map((r) => JSON.parse(r) as unknown));
    }
  }, 180_000);
});
