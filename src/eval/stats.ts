/**
 * The numbers of an eval's summary. pass@k and pass^k use the unbiased estimators over n
 * samples of which c passed (docs/design/EVALS.md): pass@k = 1 − C(n−c, k) / C(n, k), the chance
 * that at least one of k casts drawn without replacement passes; pass^k = C(c, k) / C(n, k), the
 * chance that all k pass.
 */

/** C(n, k) / C(m, k) as a product, exact enough for large n (no factorials). */
function ratio(n: number, m: number, k: number): number {
  if (k > n) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r *= (n - i) / (m - i);
  return r;
}

export function passAtK(n: number, c: number, k: number): number {
  if (k > n || n === 0) return NaN;
  return 1 - ratio(n - c, n, k);
}

export function passHatK(n: number, c: number, k: number): number {
  if (k > n || n === 0) return NaN;
  return ratio(c, n, k);
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** The nearest-rank 95th percentile. */
export function p95(xs: readonly number[]): number {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)]!;
}
