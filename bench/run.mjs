#!/usr/bin/env node
// `npm run bench [-- NAME…] [--json FILE] [--compare FILE] [--tolerance 0.1] [--rounds N]
// [--record FILE]`: builds once, then runs every bench/*.bench.mjs (or those whose file name
// contains a NAME) in its own process, without NODE_EXTRA_CA_CERTS (as on a user's machine).
// Each bench reports its figures through bench/report.mjs's `row()`; the rows of the run are
// written as JSON to bench/results/latest.json (or --json FILE). --compare FILE then prints each
// row's ratio to FILE's and flags the rows that got worse beyond their spread (bench/compare.mjs);
// the exit code is 2 when a row is flagged, 1 when a bench failed. --record FILE replaces FILE's
// rows of the benches that ran with this run's, keeping the others (a baseline recorded in parts).
// --rounds N: paired measurements over N rounds (≥ 3) instead of each bench's own count.
// --no-build: use dist/ as it is (only when it was built from the code being measured).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compareRuns, formatComparison, readRun, toleranceArg } from "./compare.mjs";
import { userEnv } from "./paired.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const argv = process.argv.slice(2);
const WITH_VALUE = ["--json", "--compare", "--tolerance", "--rounds", "--record"];
const flag = (name) => {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  if (argv[i + 1] === undefined) throw new Error(`${name} needs a value`);
  return argv[i + 1];
};
const only = argv.filter((a, i) => !a.startsWith("--") && !WITH_VALUE.includes(argv[i - 1]));
const out = resolve(flag("--json") ?? join(here, "results", "latest.json"));
const comparePath = flag("--compare");
const recordPath = flag("--record");
const tolerance = toleranceArg(argv);
// Read before running: --compare may name the file this run is about to overwrite.
const recorded = comparePath ? readRun(resolve(comparePath)) : null;

if (!argv.includes("--no-build"))
  execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
const rowsFile = join(tmpdir(), `spellbook-bench-rows-${process.pid}.jsonl`);
writeFileSync(rowsFile, "");
const env = { ...userEnv(), SPELLBOOK_BENCH_ROWS: rowsFile };
if (flag("--rounds")) {
  env.SPELLBOOK_BENCH_ROUNDS = flag("--rounds");
  // Few rounds give a narrow spread by chance: a flag from them may be noise (BENCH.md).
  if (comparePath || recordPath)
    console.warn("--rounds: a quick run; compare and record with each bench's own rounds");
}
const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" });
// Changes to what is measured (not the recorded baseline or results themselves).
const dirty = spawnSync(
  "git",
  ["status", "--porcelain", "--", "src", "bench", ":!bench/baseline.json"],
  {
    cwd: root,
    encoding: "utf8",
  },
);
const run = {
  version: 1,
  date: new Date().toISOString(),
  commit: `${commit.stdout.trim()}${dirty.stdout.trim() ? "+changes" : ""}`,
  node: process.version,
  cpus: cpus().length,
  args: argv,
  benches: {},
  rows: [],
};

let failed = 0;
for (const file of readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs"))
  .sort()) {
  if (only.length && !only.some((o) => file.includes(o))) continue;
  // The scale bench runs 3,000 queued casts (minutes on a shared machine): only when asked.
  if (file === "scale.bench.mjs" && !only.length && !process.env.BENCH_SCALE_N) {
    console.log(
      `\n## ${file}\nnot run: it takes minutes; npm run bench -- scale (BENCH_SCALE_N=200 for fewer casts)`,
    );
    continue;
  }
  const name = file.replace(/\.bench\.mjs$/, "");
  console.log(`\n## ${file}`);
  const load = loadavg()[0];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--expose-gc", join(here, file)], {
    stdio: "inherit",
    env: { ...env, SPELLBOOK_BENCH_NAME: name },
  });
  if (r.status !== 0) failed++;
  run.benches[name] = {
    seconds: Math.round((performance.now() - t0) / 100) / 10,
    load: [Number(load.toFixed(1)), Number(loadavg()[0].toFixed(1))],
    exit: r.status ?? r.signal,
  };
}
run.rows = readFileSync(rowsFile, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
rmSync(rowsFile, { force: true });
const keys = run.rows.map((r) => `${r.bench} · ${r.name}`);
const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
if (twice.length) {
  console.error(`rows reported twice (each row needs its own name): ${twice.join("; ")}`);
  failed++;
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(run, null, 1)}\n`);
console.log(`\n${run.rows.length} rows written to ${out}`);

if (recordPath) {
  const path = resolve(recordPath);
  const base = existsSync(path) ? readRun(path) : { benches: {}, rows: [] };
  const ran = new Set(Object.keys(run.benches));
  // Each bench says when, from which commit and at which load it was recorded.
  const benches = { ...base.benches };
  for (const b of ran) benches[b] = { ...run.benches[b], date: run.date, commit: run.commit };
  const merged = {
    version: 1,
    date: run.date,
    node: run.node,
    cpus: run.cpus,
    benches,
    rows: [...base.rows.filter((r) => !ran.has(r.bench)), ...run.rows],
  };
  writeFileSync(path, `${JSON.stringify(merged, null, 1)}\n`);
  console.log(`${run.rows.length} rows recorded into ${path} (${ran.size} bench(es) replaced)`);
}

let flagged = 0;
if (recorded) {
  const result = compareRuns(recorded, run, tolerance);
  console.log(`\n## compared with ${comparePath}`);
  for (const l of formatComparison(result)) console.log(l);
  flagged = result.flagged;
}
process.exit(failed ? 1 : flagged ? 2 : 0);
