/// <reference lib="dom" />
/**
 * An eval run's numbers as the page draws them, from its rows (results.jsonl): pass/fail/error
 * counts per case and per target (spell × LLM), pass@k and pass^k over k (the estimators
 * below, as summary.json computes them at k = repeat), and the cost and latency of
 * each cast with their p50 and p95 (nearest rank, as summary.json's p95).
 */
import type { EvalRow } from "./types.js";

/**
 * The unbiased estimators over n casts of which c passed, as src/eval/stats.ts has them (that
 * module is a layer above the viewer's): pass@k = 1 − C(n−c, k)/C(n, k), pass^k = C(c, k)/C(n, k),
 * each ratio of binomials taken as a product.
 */
function binomRatio(top: number, n: number, k: number): number {
  if (k > top) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r *= (top - i) / (n - i);
  return r;
}
const passAtK = (n: number, c: number, k: number) => 1 - binomRatio(n - c, n, k);
const passHatK = (n: number, c: number, k: number) => binomRatio(c, n, k);

export interface Counts {
  pass: number;
  fail: number;
  error: number;
  /** Rows with no verdict read (neither pass nor fail nor error). */
  unknown: number;
}

export const rate = (c: Counts): number | null =>
  c.pass + c.fail ? c.pass / (c.pass + c.fail) : null;

const zero = (): Counts => ({ pass: 0, fail: 0, error: 0, unknown: 0 });

function add(c: Counts, r: EvalRow): void {
  if (r.status === null) c.unknown++;
  else c[r.status]++;
}

/** Counts per key, in the order keys first appear. */
export function countBy(rows: EvalRow[], key: (r: EvalRow) => string): Map<string, Counts> {
  const out = new Map<string, Counts>();
  for (const r of rows) {
    const k = key(r);
    let c = out.get(k);
    if (!c) out.set(k, (c = zero()));
    add(c, r);
  }
  return out;
}

export const targets = (rows: EvalRow[]) => [...new Set(rows.map((r) => r.target))];

/** A row's case, with its target when the run cast more than one. */
export const caseKey = (rows: EvalRow[]) => {
  const many = targets(rows).length > 1;
  return (r: EvalRow) => (many && r.target ? `${r.case} · ${r.target}` : r.case);
};

export interface KPoint {
  k: number;
  at: number;
  hat: number;
  /** Cases with at least k decided casts (the mean is over them). */
  cases: number;
}

/** pass@k and pass^k for k = 1 … the most decided casts of a case, averaged over the cases. */
export function kCurve(rows: EvalRow[]): KPoint[] {
  const perCase = countBy(rows, (r) => r.case);
  const ns = [...perCase.values()].map((c) => ({ n: c.pass + c.fail, c: c.pass }));
  const maxN = Math.max(0, ...ns.map((x) => x.n));
  const out: KPoint[] = [];
  for (let k = 1; k <= maxN; k++) {
    let at = 0;
    let hat = 0;
    let cases = 0;
    for (const { n, c } of ns)
      if (n >= k) {
        at += passAtK(n, c, k);
        hat += passHatK(n, c, k);
        cases++;
      }
    if (cases) out.push({ k, at: at / cases, hat: hat / cases, cases });
  }
  return out;
}

/** The nearest-rank q-quantile of sorted values. */
export function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export interface Spread {
  n: number;
  sorted: number[];
  p50: number;
  p95: number;
  mean: number;
  max: number;
}

export function spread(values: (number | null)[]): Spread {
  const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    sorted,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    mean: sorted.length ? sum / sorted.length : NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}
