// The PostgreSQL loom store (issue 27) against the JSONL store, through the same LoomStore seam:
// append cost (one awaited append at a time, as the loop does per turn) and the cost of reading
// a thread at depth D (one recursive query vs a file read into an index). Starts its own
// PostgreSQL (initdb into a temp dir, loopback, fsync off as in the tests); skips without it.
// Or point it at a server: SPELLBOOK_BENCH_PG_URL=postgres://… (a database it may fill).
// Then `spell loom import` of a 10,000-turn JSONL loom (100 entities, a reward every 50 turns)
// into a new database: wall and CPU time of this process (SPELLBOOK_BENCH_IMPORT_TURNS=0 skips).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { setTimeout } from "node:timers";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { jsonlLoomStore } from "../dist/loom/stores/index.js";
import { importLoomFile } from "../dist/loom/postgres/index.js";
import { postgresLoomStore } from "../dist/loom/postgres/index.js";
import { startPostgres } from "./postgres-server.mjs";
import { row } from "./report.mjs";

const N = 2000;
const DEPTH = 1000;

const turn = (i, entity = "bench") => ({
  type: "turn",
  id: `${entity}-${i}`,
  parent_id: i > 1 ? `${entity}-${i - 1}` : null,
  cantrip_id: "c1",
  entity_id: entity,
  role: "turn",
  sequence: i,
  utterance: `utterance ${i} `.repeat(20),
  observation: `observation ${i} `.repeat(20),
  gate_calls: [],
  metadata: {
    tokens_prompt: 10,
    tokens_completion: 5,
    tokens_cached: 0,
    duration_ms: 1,
    timestamp: new Date().toISOString(),
  },
  reward: null,
  terminated: false,
  truncated: false,
  reason: null,
});

async function measure(name, open) {
  const store = open();
  await store.append(turn(1, "warm")); // a connection and the schema, outside the timing
  let t = performance.now();
  for (let i = 1; i <= N; i++) await store.append(turn(i));
  const append = (performance.now() - t) / N;
  for (let i = 1; i <= DEPTH; i++) await store.append(turn(i, "deep"));
  await store.close();
  const reader = open();
  await reader.readEntity("none"); // connected (pg) — the file is read on the first real read
  t = performance.now();
  await reader.readThread(`deep-${DEPTH}`);
  const first = performance.now() - t;
  t = performance.now();
  await reader.readThread(`deep-${DEPTH}`);
  const again = performance.now() - t;
  await reader.close();
  row(`${name}: append, one awaited at a time`, append * 1000, {
    unit: "µs/turn",
    digits: 0,
    better: "lower",
  });
  const ms = { unit: "ms", digits: 1, better: "lower" };
  row(`${name}: thread at depth ${DEPTH}, first read`, first, ms);
  row(`${name}: thread at depth ${DEPTH}, again`, again, ms);
}

const IMPORT_TURNS = Number(process.env.SPELLBOOK_BENCH_IMPORT_TURNS ?? 10000);

/** A JSONL loom of `n` turns in 100-turn entities, a reward after every 50th turn. */
function importFile(n) {
  const path = join(dir, "import.jsonl");
  const lines = [JSON.stringify({ type: "loom", version: 3, created: new Date().toISOString() })];
  for (let i = 0; i < n; i++) {
    const t = turn((i % 100) + 1, `imp${Math.floor(i / 100)}`);
    lines.push(JSON.stringify(t));
    if (i % 50 === 49)
      lines.push(JSON.stringify({ type: "reward", turn_id: t.id, reward: 1, timestamp: "x" }));
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, records: lines.length - 1 };
}

async function measureImport(url) {
  const { path, records } = importFile(IMPORT_TURNS);
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const round of [1, 2]) {
    await admin.query(`DROP DATABASE IF EXISTS bench_import_${round}`);
    await admin.query(`CREATE DATABASE bench_import_${round}`);
    const target = url.replace(/\/[^/]*$/, `/bench_import_${round}`);
    const cpu = process.cpuUsage();
    const t = performance.now();
    const done = await importLoomFile(path, target);
    const wall = performance.now() - t;
    const { user, system } = process.cpuUsage(cpu);
    const ms = { unit: "ms", digits: 0, better: "lower" };
    const note = `(${records} records, ${done.added} new)`;
    row(`import into a new database, round ${round}: wall`, wall, { ...ms, note });
    row(
      `import into a new database, round ${round}: CPU of this process`,
      (user + system) / 1000,
      ms,
    );
  }
  await admin.end();
}

const dir = mkdtempSync(join(tmpdir(), "bench-loom-pg-"));
let server = null;
try {
  const url = process.env.SPELLBOOK_BENCH_PG_URL ?? (server = await startPostgres())?.url;
  if (!url) row("loom-pg", "skipped: PostgreSQL not installed (apt-get install postgresql)");
  else {
    await measure("JSONL", () => jsonlLoomStore(join(dir, "loom.jsonl")));
    await measure("PostgreSQL", () => postgresLoomStore(url));
    console.log(
      `(${N} appends, one awaited at a time; the machine may be loaded: compare rows of one run)`,
    );
    if (IMPORT_TURNS > 0) await measureImport(url);
  }
} finally {
  await server?.stop();
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 500).unref();
}
