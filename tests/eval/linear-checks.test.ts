// A queued case's `result_matches` / `result_schema` on a worker (src/eval/linear-checks.ts):
// RE2, so a pattern that would backtrack for ever answers at once, a pattern that matches still
// holds, and one RE2 cannot take (lookaround, backreference) is an error, never a pass.
import { describe, expect, it } from "vitest";
import type { CastResult } from "../../src/core/result.js";
import { linearCheck } from "../../src/eval/linear-checks.js";

const cast = (result: unknown) => ({ result }) as unknown as CastResult<unknown>;
const ANSWER = `${"a".repeat(5000)}!`;

describe("a queued case's patterns match in linear time", () => {
  it("result_matches: RE2, found anywhere in the answer as JavaScript's test() finds it", () => {
    expect(linearCheck("result_matches", "^(a+)+$", cast(ANSWER))).toMatch(/does not match/);
    expect(linearCheck("result_matches", "^(a+)+!$", cast(ANSWER))).toBeNull();
    expect(linearCheck("result_matches", "\\d+", cast("the answer is 42"))).toBeNull();
    expect(linearCheck("result_matches", "(?=a)a", cast("a"))).toMatch(/^error: .*RE2 syntax/);
    expect(linearCheck("result_matches", "(a)\\1", cast("aa"))).toMatch(/^error: /);
  });

  it("result_schema: its pattern and patternProperties are RE2's, each pattern its own", () => {
    const schema = (pattern: string) => ({ type: "string", pattern });
    expect(linearCheck("result_schema", schema("^(a+)+$"), cast(ANSWER))).toMatch(/must match/);
    expect(linearCheck("result_schema", schema("^a+!$"), cast(ANSWER))).toBeNull();
    expect(linearCheck("result_schema", schema("^b"), cast(ANSWER))).toMatch(/must match/);
    const props = { type: "object", patternProperties: { "^x": { type: "number" } } };
    expect(linearCheck("result_schema", props, cast('{"x1": 1}'))).toBeNull();
    expect(linearCheck("result_schema", props, cast('{"x1": "no"}'))).toMatch(/must be number/);
    expect(linearCheck("result_schema", schema("(?!a)"), cast("b"))).toMatch(
      /^error: .*RE2 syntax/,
    );
  });
});
