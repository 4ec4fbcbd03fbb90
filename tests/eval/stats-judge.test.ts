// The summary's estimators and the judge's strict reading, as pure functions.
import { describe, expect, it } from "vitest";
import { parseJudgement } from "../../src/eval/judge.js";
import { p95, passAtK, passHatK } from "../../src/eval/stats.js";

/** C(n, k) by the definition, for small numbers. */
const choose = (n: number, k: number): number => {
  if (k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
};

describe("pass@k and pass^k", () => {
  it("are the unbiased estimators 1 − C(n−c,k)/C(n,k) and C(c,k)/C(n,k)", () => {
    for (const [n, c, k] of [
      [10, 3, 1],
      [10, 3, 2],
      [10, 3, 5],
      [5, 5, 5],
      [5, 0, 3],
      [20, 17, 10],
    ] as const) {
      expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
      expect(passHatK(n, c, k)).toBeCloseTo(choose(c, k) / choose(n, k), 12);
    }
    expect(passAtK(4, 2, 1)).toBe(0.5);
    expect(passHatK(4, 2, 1)).toBe(0.5);
    expect(passAtK(3, 1, 4)).toBeNaN(); // fewer samples than k: undefined, not a guess
  });

  it("p95 is the nearest rank", () => {
    expect(p95([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100])).toBe(19);
    expect(p95([])).toBe(0);
  });
});

describe("a judge's reply", () => {
  it("is read strictly: one JSON object with pass, score in [0, 1] and reason", () => {
    expect(parseJudgement('{"pass": true, "score": 0.9, "reason": "right"}')).toEqual({
      pass: true,
      score: 0.9,
      reason: "right",
    });
    expect(parseJudgement(' {"pass": false, "reason": "wrong"}\n')).toMatchObject({
      pass: false,
      score: 0,
    });
    for (const [text, why] of [
      ["Yes, it is correct.", "not JSON"],
      ['```json\n{"pass": true, "reason": "x"}\n```', "not JSON"],
      ['{"pass": "yes", "reason": "x"}', "pass is not true or false"],
      ['{"pass": true, "score": 2, "reason": "x"}', "score is not a number from 0 to 1"],
      ['{"pass": true}', "reason is not text"],
      ['{"pass": true, "reason": "x", "extra": 1}', "unknown key extra"],
      ["[true]", "not an object"],
    ] as const)
      expect(parseJudgement(text).error).toContain(`malformed judgement (${why})`);
  });
});
