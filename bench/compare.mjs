#!/usr/bin/env node
// Compares a bench run with a recorded one (both bench/run.mjs JSON files): each row's ratio to
// the recorded row, and a flag on the rows that got worse beyond their spread.
//
// A row is flagged only when it is a paired ratio (both sides measured alternately in the same
// rounds of one run, so machine load falls on both), measured over ≥ 3 rounds in both runs, with
// a direction (`better`), and its whole new range lies beyond the recorded range times the
// tolerance: for `better: "lower"`, new min > recorded max × (1 + tolerance); for "higher", new
// max < recorded min / (1 + tolerance). Every other row is shown with its ratio, as information.
//
//   node bench/compare.mjs RECORDED.json NEW.json [--tolerance 0.1]
// exits 2 when a row is flagged, 0 otherwise (`npm run bench -- --compare FILE` does the same
// after running the benches).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const DEFAULT_TOLERANCE = 0.1;
export const MIN_ROUNDS = 3;

const key = (r) => `${r.bench} · ${r.name}`;
const hasSpread = (r) =>
  Number.isFinite(r.min) && Number.isFinite(r.max) && (r.rounds ?? 0) >= MIN_ROUNDS;

/**
 * One row against its recorded self: "worse" (flagged), "better" (beyond the spread the other
 * way: re-record the baseline), "same" (within the spread), or "info" (not a paired ratio over
 * ≥ 3 rounds with a direction, or a text: never flagged).
 */
export function judge(recorded, now, tolerance = DEFAULT_TOLERANCE) {
  const comparable =
    recorded.paired &&
    now.paired &&
    recorded.better &&
    recorded.better === now.better &&
    hasSpread(recorded) &&
    hasSpread(now);
  if (!comparable) return "info";
  const up = 1 + tolerance;
  const above = now.min > recorded.max * up;
  const below = now.max < recorded.min / up;
  if (recorded.better === "lower") return above ? "worse" : below ? "better" : "same";
  return below ? "worse" : above ? "better" : "same";
}

/**
 * Every row of `current` against `recorded` (run JSON objects). Rows of benches the current run
 * did not run are left out (counted in `notRun`); a recorded row of a bench that ran but missing
 * now is "missing", a row with no recorded match "new". Returns { rows, flagged, notRun }.
 */
export function compareRuns(recorded, current, tolerance = DEFAULT_TOLERANCE) {
  const before = new Map(recorded.rows.map((r) => [key(r), r]));
  const ran = new Set(current.rows.map((r) => r.bench));
  for (const b of Object.keys(current.benches ?? {})) ran.add(b);
  const rows = [];
  const seen = new Set();
  for (const now of current.rows) {
    const k = key(now);
    seen.add(k);
    const was = before.get(k);
    if (!was) {
      rows.push({ key: k, status: "new", now });
      continue;
    }
    const ratio =
      Number.isFinite(now.value) && Number.isFinite(was.value) && was.value !== 0
        ? now.value / was.value
        : null;
    rows.push({ key: k, status: judge(was, now, tolerance), ratio, was, now });
  }
  let notRun = 0;
  for (const was of recorded.rows) {
    const k = key(was);
    if (seen.has(k)) continue;
    if (ran.has(was.bench)) rows.push({ key: k, status: "missing", was });
    else notRun++;
  }
  // The load average at each bench's start and end, then and now: a ratio whose sides wait on
  // other processes (a child, a server) drifts towards 1 on a busy machine.
  const loads = [...ran].map((bench) => ({
    bench,
    was: recorded.benches?.[bench]?.load,
    now: current.benches?.[bench]?.load,
  }));
  const flagged = rows.filter((r) => r.status === "worse").length;
  return { rows, flagged, notRun, tolerance, loads };
}

const num = (x) =>
  Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3);
function figure(r) {
  if (!r) return "-";
  if (r.text !== undefined) return r.text;
  const u = r.unit ? (r.unit === "×" ? "×" : ` ${r.unit}`) : "";
  const s = hasSpread(r) ? ` (${num(r.min)}–${num(r.max)})` : "";
  return `${num(r.value)}${u}${s}`;
}
const LABEL = {
  worse: "WORSE",
  better: "better",
  same: "same",
  info: "",
  new: "new",
  missing: "missing",
};

/** The comparison as text lines: one per row, then a summary. */
export function formatComparison({ rows, flagged, notRun, tolerance, loads = [] }) {
  const w = Math.min(70, Math.max(20, ...rows.map((r) => r.key.length)));
  const lines = [
    `${"row".padEnd(w)}  ${"recorded".padEnd(24)}  ${"now".padEnd(24)}  ${"now/rec".padEnd(7)}  flag`,
  ];
  for (const r of rows) {
    const ratio = r.ratio == null ? "" : `${r.ratio.toFixed(2)}×`;
    lines.push(
      `${r.key.padEnd(w)}  ${figure(r.was).padEnd(24)}  ${figure(r.now).padEnd(24)}  ${ratio.padEnd(7)}  ${LABEL[r.status]}`.trimEnd(),
    );
  }
  const count = (s) => rows.filter((r) => r.status === s).length;
  lines.push(
    `${flagged} row(s) worse beyond their spread (tolerance ${Math.round(tolerance * 100)}%), ${count("better")} better, ${count("same")} within it; ${count("info")} shown for information (not paired ratios over ≥ ${MIN_ROUNDS} rounds); ${count("new")} new, ${count("missing")} missing${notRun ? `; ${notRun} recorded row(s) of benches not run` : ""}`,
  );
  const load = (l) => (Array.isArray(l) ? l.join(" → ") : "?");
  for (const l of loads)
    lines.push(`${l.bench}: load average recorded ${load(l.was)}, now ${load(l.now)}`);
  if (count("better"))
    lines.push(
      "rows got better beyond their spread: re-record the baseline (docs/design/BENCH.md)",
    );
  return lines;
}

export const readRun = (path) => JSON.parse(readFileSync(path, "utf8"));

/** `--tolerance X` (a fraction, 0.1 = 10%) from argv, else the default. */
export function toleranceArg(argv) {
  const i = argv.indexOf("--tolerance");
  if (i < 0) return DEFAULT_TOLERANCE;
  const t = Number(argv[i + 1]);
  if (!(t >= 0)) throw new Error(`--tolerance takes a fraction (0.1 = 10%), not ${argv[i + 1]}`);
  return t;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv
    .slice(2)
    .filter((a, i, all) => a !== "--tolerance" && all[i - 1] !== "--tolerance");
  if (files.length !== 2) {
    console.error("usage: node bench/compare.mjs RECORDED.json NEW.json [--tolerance 0.1]");
    process.exit(64);
  }
  const result = compareRuns(readRun(files[0]), readRun(files[1]), toleranceArg(process.argv));
  for (const l of formatComparison(result)) console.log(l);
  process.exit(result.flagged ? 2 : 0);
}
