// The viewer page's numbers (src/protocols/viewer/page/eval-stats.ts, format.ts), outside a
// browser: the page's pass@k and pass^k agree with the eval's own estimators (src/eval/stats.ts)
// for every n, c and k it can meet; quantiles are summary.json's nearest rank; numbers read
// rounded for people.
import { describe, expect, it } from "vitest";
import { p95, passAtK, passHatK } from "../../src/eval/stats.js";
import { kCurve, quantile, spread } from "../../src/protocols/viewer/page/eval-stats.js";
import * as f from "../../src/protocols/viewer/page/format.js";
import type { EvalRow } from "../../src/protocols/viewer/evals.js";

const row = (c: string, status: EvalRow["status"]): EvalRow => ({
  case: c,
  repeat: null,
  pass: status === null || status === "error" ? null : status === "pass",
  status,
  score: null,
  reason: "",
  entity: null,
  turn: null,
  target: "",
  cost: null,
  latencyMs: null,
  tokens: null,
  turns: null,
});

describe("the page's numbers", () => {
  it("pass@k and pass^k: the eval's estimators, for n ≤ 12, every c and k", () => {
    for (let n = 1; n <= 12; n++)
      for (let c = 0; c <= n; c++) {
        const rows = Array.from({ length: n }, (_, i) => row("a", i < c ? "pass" : "fail"));
        // an errored cast is not a decided one: it changes nothing
        rows.push(row("a", "error"));
        const curve = kCurve(rows);
        expect(curve.map((p) => p.k)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        for (const p of curve) {
          expect(p.at).toBeCloseTo(passAtK(n, c, p.k), 12);
          expect(p.hat).toBeCloseTo(passHatK(n, c, p.k), 12);
        }
      }
  });

  it("pass@k over cases: the mean over the cases with at least k decided casts", () => {
    const rows = [row("a", "pass"), row("a", "fail"), row("a", "fail"), row("b", "pass")];
    const [k1, k2] = kCurve(rows);
    expect(k1).toMatchObject({ k: 1, cases: 2 });
    expect(k1!.at).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(k2).toMatchObject({ k: 2, cases: 1 });
    expect(k2!.at).toBeCloseTo(passAtK(3, 1, 2), 12);
  });

  it("p95 is summary.json's nearest rank; p50 the same rule", () => {
    for (const xs of [[5], [3, 1, 2], Array.from({ length: 41 }, (_, i) => (i * 7) % 41)]) {
      const s = spread(xs);
      expect(s.p95).toBe(p95(xs));
      expect(s.p50).toBe(quantile(s.sorted, 0.5));
      expect(s.max).toBe(Math.max(...xs));
    }
    expect(spread([null, 2, null]).n).toBe(1);
  });

  it("rounded for people", () => {
    expect(f.pct(2 / 3)).toBe("66.7%");
    expect(f.pct(1)).toBe("100%");
    expect(f.pct(NaN)).toBe("n/a");
    expect(f.usd(0.0012345)).toBe("$0.0012");
    expect(f.usd(0.0123)).toBe("$0.012");
    expect(f.usd(12.345)).toBe("$12.35");
    expect(f.usd(null)).toBe("–");
    expect(f.ms(1234)).toBe("1.2 s");
    expect(f.ms(840)).toBe("840 ms");
  });
});
