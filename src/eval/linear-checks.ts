/**
 * `result_matches` and `result_schema` for a case that came from the queue (queue/worker.ts):
 * whoever can write to the queue's Redis wrote its patterns, so they match in linear time (RE2,
 * re2js), never with JavaScript's backtracking RegExp, which `^(a+)+$` against a long answer
 * holds for ever (the worker's thread with it: no job lock renewed, no other job taken). A
 * pattern RE2 cannot take (a lookaround, a backreference) is an assertion that cannot be decided
 * ("error: …"). A local eval's patterns are its author's own and stay JavaScript's
 * (conformance/check-result.ts).
 */
import Ajv2020 from "ajv/dist/2020.js";
import { RE2JS, RE2JSSyntaxException } from "re2js";
import type { CastResult } from "../core/result.js";
import { errorMessage } from "../core/errors.js";
import { resultValue, show, textOf } from "../conformance/match.js";

/** RE2 in the shape Ajv asks of a regular-expression engine (`code.regExp`). */
function re2(pattern: string): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(pattern);
  // Ajv keeps one compiled pattern per toString(): each pattern its own.
  return { test: (s: string) => re.test(s), toString: () => `re2:${pattern}` };
}
re2.code = "re2"; // what Ajv names the engine in generated code; never run as a module here

let shared: InstanceType<typeof Ajv2020.default> | undefined;
const linearAjv = () =>
  (shared ??= new Ajv2020.default({ strict: false, allErrors: false, code: { regExp: re2 } }));

/** The check's message (null: it held), or "error: …" when the pattern is not RE2's. */
export function linearCheck(
  key: "result_matches" | "result_schema",
  want: unknown,
  cast: CastResult<unknown>,
): string | null {
  if (key === "result_matches") {
    let re: RE2JS;
    try {
      re = RE2JS.compile(String(want));
    } catch (err) {
      return `error: result_matches: /${String(want)}/ is not RE2 syntax, which a queued case's patterns are (${errorMessage(err)})`;
    }
    return re.test(textOf(cast.result))
      ? null
      : `result ${show(cast.result)} does not match /${String(want)}/`;
  }
  const raw = cast.result;
  const value = resultValue(raw);
  const ajv = linearAjv();
  let validate;
  try {
    validate = ajv.compile(want as object);
  } catch (err) {
    const why =
      err instanceof RE2JSSyntaxException ? " (a queued case's patterns are RE2 syntax)" : "";
    return `error: result_schema: ${errorMessage(err)}${why}`;
  }
  return validate(value)
    ? null
    : `result_schema: ${show(raw)}: ${ajv.errorsText(validate.errors, { dataVar: "result" })}`;
}
