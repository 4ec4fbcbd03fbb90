/**
 * Expectations on a cast's result shared by tests.yaml and evals (one vocabulary):
 * `result_matches` (a regular expression over the result's text), `result_schema` (a JSON
 * Schema the result — parsed when it is JSON text — must satisfy) and `max_turns`. Patterns are
 * RE2's, matched in linear time (core/linear-pattern.ts): a spell's, a data set's or a queued
 * job's pattern cannot hold the process; one RE2 cannot take throws (the case errors or fails).
 */
import Ajv2020 from "ajv/dist/2020.js";
import { LINEAR_AJV, linearPattern } from "../core/linear-pattern.js";
import type { CastResult } from "../core/result.js";
import { resultValue, show, textOf } from "./match.js";

type Last = () => CastResult<unknown>;

/** Made on the first `result_schema` check, not when the module loads (`spell run` start-up). */
let shared: InstanceType<typeof Ajv2020.default> | undefined;
const theAjv = () =>
  (shared ??= new Ajv2020.default({ strict: false, allErrors: false, ...LINEAR_AJV }));

export const resultChecks = {
  result_matches: (w: unknown, last: Last): string | null =>
    linearPattern(String(w)).test(textOf(last().result))
      ? null
      : `result ${show(last().result)} does not match /${String(w)}/`,
  result_schema: (w: unknown, last: Last): string | null => {
    const raw = last().result;
    const value = resultValue(raw);
    const ajv = theAjv();
    const validate = ajv.compile(w as object);
    return validate(value)
      ? null
      : `result_schema: ${show(raw)}: ${ajv.errorsText(validate.errors, { dataVar: "result" })}`;
  },
  max_turns: (w: unknown, last: Last): string | null =>
    last().turns <= Number(w)
      ? null
      : `max_turns: expected at most ${show(w)}, got ${last().turns}`,
};
