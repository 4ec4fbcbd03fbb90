// Scale-out (issue 27, "Done when"): N scripted 3-turn casts (default 1,000), each model call
// answered after 50 ms by the loopback wire server (its own process), put on a BullMQ queue on one
// real Redis by the dispatcher `spell run --repeat K --queue` and `spell eval --queue` use
// (queue/remote.ts under eval/run.ts), and run by 1, 2 and 4 `spell worker` processes (the built
// CLI) recording to one real PostgreSQL loom (a fresh database per worker count).
// Printed: casts/s per worker count, the ratio 4 vs 1 (target ≥ 3×) at the printed per-worker
// --concurrency, each run's turn count in PostgreSQL (must be exactly 3 × N), the CPU time the
// workers, PostgreSQL and Redis spent per cast, the load average, then bench/loom-pg.bench.mjs's
// append and thread-read figures (PostgreSQL against JSONL) on the same server.
// Then (issue 40) 4 `spell worker`s against 4 bare BullMQ workers doing the same jobs (the same
// three model calls a cast makes, bench/scale-bare.mjs), in paired rounds of BENCH_SCALE_PAIRED_N
// casts a side (default 200): casts/s of each and their ratio (target ≥ 0.9×).
// BENCH_SCALE_N casts per run; BENCH_SCALE_C the per-worker --concurrency (default 2);
// BENCH_SCALE_WORKERS the worker counts (default 1,2,4; "" for none: the paired rounds only);
// BENCH_SCALE_NODE_ARGS node flags for the workers (e.g. --cpu-prof).
// Skips, saying why, without redis-server or PostgreSQL.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import { repeatPlan } from "../dist/cli/run-repeat.js";
import { runEval } from "../dist/eval/run.js";
import { openRemote } from "../dist/queue/remote.js";
import { startPostgres } from "./postgres-server.mjs";
import { startRedis } from "./redis-server.mjs";
import { rounds, row as report } from "./report.mjs";
import { interleave, median, ratio } from "./paired.mjs";
import { bareRound, startBareWorkers } from "./scale-bare.mjs";
import { startWire, threeTurnSpell } from "./wire.mjs";

const N = Number(process.env.BENCH_SCALE_N ?? 1000);
// 2 at once per worker: 4 workers then need about 1.6 of this machine's 2 cores (≈30 CPU ms per
// cast, all processes); at 4 each, 4 workers would need more CPU than 2 cores have.
const C = Number(process.env.BENCH_SCALE_C ?? 2);
const COUNTS = (process.env.BENCH_SCALE_WORKERS ?? "1,2,4").split(",").filter(Boolean).map(Number);
const PAIRED_N = Number(process.env.BENCH_SCALE_PAIRED_N ?? 200);
const root = join(import.meta.dirname, "..");
const children = [];
const dir = mkdtempSync(join(tmpdir(), "bench-scale-"));

/**
 * A process's CPU time so far (user + system, ms, from /proc), with its ended children's (which
 * it waited for) and its live children's: PostgreSQL's backends are the postmaster's children.
 */
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime, stime, cutime, cstime, in clock ticks (100 a second on Linux)
    const own = ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / 100;
    const kids = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).stdout;
    return (
      own +
      kids
        .split("\n")
        .filter(Boolean)
        .reduce((ms, k) => ms + cpuMs(Number(k)), 0)
    );
  } catch {
    return 0;
  }
}

let wire = null;
async function startWireChild() {
  const { child, port } = await startWire();
  children.push(child);
  wire = child;
  return port;
}

/** A `spell worker` process; resolves once it waits for casts. */
function startWorker(queue, loom) {
  const args = ["worker", "--queue", queue, "--concurrency", String(C), "--loom", loom];
  const node = (process.env.BENCH_SCALE_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...node, join(root, "bin/run.js"), ...args], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let log = "";
    child.stderr.on("data", (d) => {
      log += d;
      if (log.includes("waiting for casts")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`worker exited ${code}:\n${log}`)));
  });
}
const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });

async function run(workers, redis, pgServer, admin) {
  const db = `scale_${workers}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const loom = pgServer.url.replace(/\/postgres$/, `/${db}`);
  const client = new Redis(redis.url);
  await client.flushall(); // the queue of the run before, if any
  client.disconnect();
  const procs = await Promise.all(
    Array.from({ length: workers }, () => startWorker(redis.url, loom)),
  );
  const plan = repeatPlan(join(dir, "spell.yaml"), "What is 1 + 2?", { repeat: N });
  const cpu0 = {
    workers: procs.reduce((ms, p) => ms + cpuMs(p.pid), 0),
    pg: cpuMs(pgServer.pid),
    redis: cpuMs(redis.pid),
    wire: cpuMs(wire.pid),
    here: process.cpuUsage(),
  };
  const load0 = loadavg()[0];
  const t0 = performance.now();
  const remote = await openRemote(redis.url, { loom: undefined });
  const r = await runEval(plan, { out: join(dir, `out-${workers}`), env: process.env, remote });
  const s = (performance.now() - t0) / 1000;
  const cpu = {
    workers: procs.reduce((ms, p) => ms + cpuMs(p.pid), 0) - cpu0.workers,
    pg: cpuMs(pgServer.pid) - cpu0.pg,
    redis: cpuMs(redis.pid) - cpu0.redis,
    wire: cpuMs(wire.pid) - cpu0.wire,
    here: (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu0.here)),
  };
  await Promise.all(procs.map(stop));
  const g = r.groups[0];
  if (r.done !== N || g.errored)
    throw new Error(`${workers} worker(s): ${r.done}/${N} casts, ${g.errored} errored`);
  const c = new pg.Client({ connectionString: loom });
  await c.connect();
  const turns = Number((await c.query("SELECT count(*) FROM loom_turns")).rows[0].count);
  const entities = Number(
    (await c.query("SELECT count(DISTINCT entity_id) FROM loom_turns")).rows[0].count,
  );
  await c.end();
  const latency = g.mean_latency_ms;
  return { workers, s, rate: N / s, turns, entities, cpu, latency, load: [load0, loadavg()[0]] };
}

/**
 * 4 `spell worker`s (a PostgreSQL loom, as above) against 4 bare BullMQ workers making the same
 * model calls, each side started once and given PAIRED_N casts a round, in alternating order.
 */
async function pairedWithBare(redis, pgServer, admin, port) {
  await admin.query("CREATE DATABASE scale_paired");
  const loom = pgServer.url.replace(/\/postgres$/, "/scale_paired");
  const spell = await Promise.all(Array.from({ length: 4 }, () => startWorker(redis.url, loom)));
  const bare = await startBareWorkers(4, redis.url, port, C);
  children.push(...bare);
  let round = 0;
  const spellRound = async () => {
    const plan = repeatPlan(join(dir, "spell.yaml"), "What is 1 + 2?", { repeat: PAIRED_N });
    // Connected before the clock starts, as bareRound's queue is (runEval closes it).
    const remote = await openRemote(redis.url, { loom: undefined });
    const t0 = performance.now();
    const r = await runEval(plan, {
      out: join(dir, `paired-${round++}`),
      env: process.env,
      remote,
    });
    const s = (performance.now() - t0) / 1000;
    if (r.done !== PAIRED_N || r.groups[0].errored) throw new Error(`paired: ${r.done} casts`);
    return PAIRED_N / s;
  };
  // Each side's workers' CPU per cast, round by round: what the spell adds to each job.
  const cpu = { spell: [], bare: [] };
  const timed = (side, procs, fn) => async () => {
    const at = procs.reduce((ms, p) => ms + cpuMs(p.pid), 0);
    const perS = await fn();
    cpu[side].push((procs.reduce((ms, p) => ms + cpuMs(p.pid), 0) - at) / PAIRED_N);
    return perS;
  };
  try {
    await spellRound(); // warm both sides up
    await bareRound(redis.url, PAIRED_N);
    const t = await interleave(rounds(3), {
      spell: timed("spell", spell, spellRound),
      bare: timed("bare", bare, () => bareRound(redis.url, PAIRED_N)),
    });
    const perS = { unit: "casts/s", digits: 1, better: "higher" };
    const perCast = { unit: "CPU ms/cast", digits: 1, better: "lower" };
    report("4 workers: spell worker, paired", median(t.spell), perS);
    report("4 workers: bare BullMQ, same model calls, paired", median(t.bare), perS);
    report("4 workers: spell workers' CPU, paired", median(cpu.spell), perCast);
    report("4 workers: bare BullMQ workers' CPU, paired", median(cpu.bare), perCast);
    const r = ratio(t.spell, t.bare);
    report("4 workers casts/s: spell worker / bare BullMQ doing the same jobs", r, {
      better: "higher",
      paired: true,
      target: "≥ 0.9×",
      ok: r.median >= 0.9,
      note: `(${PAIRED_N} casts a side a round, --concurrency ${C} per worker)`,
    });
  } finally {
    await Promise.all([...spell, ...bare].map(stop));
  }
}

const missing = [
  spawnSync("redis-server", ["--version"]).status === 0 ? null : "redis-server is not installed",
].filter(Boolean);
let redis = null;
let pgServer = null;
try {
  pgServer = missing.length ? null : await startPostgres();
  if (!missing.length && !pgServer) missing.push("PostgreSQL (initdb) is not installed");
  if (missing.length) {
    report("scale", `skipped: ${missing.join("; ")} (apt-get install redis-server postgresql)`);
  } else {
    redis = await startRedis(dir);
    const port = await startWireChild();
    writeFileSync(join(dir, "spell.yaml"), threeTurnSpell(port));
    const admin = new pg.Client({ connectionString: pgServer.url });
    await admin.connect();
    console.log(
      `(N=${N} casts per run, 3 turns each, 50 ms per model call; --concurrency ${C} per worker; ${process.env.BENCH_SCALE_N ? "" : "BENCH_SCALE_N to run fewer; "}the machine is shared: the load average is printed per run)`,
    );
    const rows = [];
    for (const w of COUNTS) {
      const row = await run(w, redis, pgServer, admin);
      rows.push(row);
      const cpu = { unit: "CPU ms/cast", digits: 1, better: "lower" };
      const of = `${w} worker(s)`;
      report(`${of}: casts/s`, row.rate, {
        unit: "casts/s",
        digits: 1,
        better: "higher",
        note: `(${row.s.toFixed(1)} s; load ${row.load.map((l) => l.toFixed(1)).join(" → ")})`,
      });
      report(`${of}: turns in PostgreSQL`, row.turns, {
        digits: 0,
        target: `exactly ${3 * N}`,
        ok: row.turns === 3 * N,
        note: `(over ${row.entities} entities)`,
      });
      report(`${of}: workers`, row.cpu.workers / N, cpu);
      report(`${of}: PostgreSQL`, row.cpu.pg / N, cpu);
      report(`${of}: Redis`, row.cpu.redis / N, cpu);
      report(`${of}: wire server`, row.cpu.wire / N, cpu);
      report(`${of}: enqueuer`, row.cpu.here / N, cpu);
      report(`${of}: mean cast on its worker`, row.latency, {
        unit: "ms",
        digits: 0,
        better: "lower",
      });
    }
    const one = rows.find((r) => r.workers === 1);
    const four = rows.find((r) => r.workers === 4);
    if (one && four)
      report("4 workers vs 1, casts/s", four.rate / one.rate, {
        unit: "×",
        better: "higher",
        target: "≥ 3×",
        ok: four.rate / one.rate >= 3,
        note: `(--concurrency ${C} per worker)`,
      });
    for (const r of rows)
      report(
        `${r.workers} worker(s): all CPU per cast`,
        (r.cpu.workers + r.cpu.pg + r.cpu.redis + r.cpu.wire + r.cpu.here) / N,
        {
          unit: "CPU ms/cast",
          digits: 1,
          better: "lower",
          note: "(2 cores: 2,000 CPU ms a second)",
        },
      );
    await pairedWithBare(redis, pgServer, admin, port);
    const bad = rows.filter((r) => r.turns !== 3 * N);
    if (bad.length) process.exitCode = 1;
    await admin.query("CREATE DATABASE scale_store");
    console.log("PostgreSQL store against JSONL (bench/loom-pg.bench.mjs, same server):");
    const figures = spawnSync(process.execPath, [join(root, "bench/loom-pg.bench.mjs")], {
      env: {
        ...process.env,
        SPELLBOOK_BENCH_PG_URL: pgServer.url.replace(/\/postgres$/, "/scale_store"),
      },
      encoding: "utf8",
    });
    process.stdout.write(figures.stdout + figures.stderr);
    await admin.end();
  }
} finally {
  for (const c of children) c.kill("SIGTERM");
  redis?.stop();
  await pgServer?.stop();
  // At exit, not on a timer: an unref'd timer never fires once nothing else keeps node alive.
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
}
