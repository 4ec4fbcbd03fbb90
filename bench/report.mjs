// How a bench reports its figures: one `row()` per figure. The row is printed as one line and,
// when `npm run bench` runs the bench (it sets SPELLBOOK_BENCH_ROWS to a JSONL file), appended to
// that file too; bench/run.mjs gathers the lines into bench/results/latest.json (or --json FILE),
// and bench/compare.mjs compares two such files. No figure is read back from printed text.
import { appendFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * Rounds for a paired measurement: `n`, or SPELLBOOK_BENCH_ROUNDS (`npm run bench -- --rounds N`)
 * for a quick run of the machinery; never fewer than 3, so every paired row has a spread.
 */
export const rounds = (n) => Math.max(3, Number(process.env.SPELLBOOK_BENCH_ROUNDS) || n);

const bench =
  process.env.SPELLBOOK_BENCH_NAME ?? basename(process.argv[1] ?? "bench").replace(/\..*$/, "");

/** Four significant digits in the JSON: more would be noise. */
const keep = (x) => (Number.isFinite(x) ? Number(x.toPrecision(4)) : x);
const fixed = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : String(x));

/**
 * One row. `figure` is a number, a string (a status or an outcome: shown and kept, never
 * compared), or a spread `{ median, min, max, rounds }` (bench/paired.mjs's `ratio()`, or
 * `spread()` of any samples).
 *
 * opts:
 * - `unit`: "×", "ms", "µs", "MB", "casts/s", ... (a spread's unit defaults to "×")
 * - `better`: "lower" or "higher"; omitted for a count or a setting (never compared)
 * - `paired`: the figure is a ratio of two sides measured alternately in the same rounds of one
 *   run (engine/floor, `spell run`/`node -e ''`): the only rows `--compare` may flag, since load
 *   from other processes falls on both sides alike. Other rows are shown with their ratio to the
 *   recorded run, as information.
 * - `target` (text) and `ok` (boolean): the bench's own goal for the figure, shown beside it.
 * - `digits` (default 2), `note` (text printed after the value).
 */
export function row(name, figure, opts = {}) {
  const { unit = "", better, paired = false, target, ok, digits = 2, note } = opts;
  const r = { bench, name };
  let shown;
  if (typeof figure === "string") {
    r.text = figure;
    shown = figure;
  } else if (typeof figure === "number") {
    Object.assign(r, { value: keep(figure), unit });
    shown = `${fixed(figure, digits)}${unit === "×" ? "×" : unit ? ` ${unit}` : ""}`;
  } else {
    const u = opts.unit ?? "×";
    const { median, min, max } = figure;
    Object.assign(r, {
      value: keep(median),
      min: keep(min),
      max: keep(max),
      rounds: figure.rounds,
      unit: u,
    });
    const sep = u === "×" ? "" : " ";
    shown = `${fixed(median, digits)}${sep}${u} (${fixed(min, digits)}–${fixed(max, digits)} over ${figure.rounds} rounds)`;
  }
  if (better) r.better = better;
  if (paired) r.paired = true;
  if (target !== undefined) r.target = target;
  if (ok !== undefined) r.ok = ok;
  if (note) shown += ` ${note}`;
  const mark = ok === undefined ? "" : ok ? "yes" : "NO";
  console.log(`${name.padEnd(62)} ${shown.padEnd(44)} ${target ?? ""} ${mark}`.trimEnd());
  if (process.env.SPELLBOOK_BENCH_ROWS)
    appendFileSync(process.env.SPELLBOOK_BENCH_ROWS, `${JSON.stringify(r)}\n`);
  return r;
}

/** The median and spread of any samples: `{ median, min, max, rounds }`. */
export function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], rounds: s.length };
}
