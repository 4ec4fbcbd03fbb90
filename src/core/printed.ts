/**
 * PROD-8: how a runtime value that holds a spell's `${env:…}` values prints itself — through the
 * spell's redaction, in `util.inspect` / `console.log` and in `JSON.stringify` alike (a Cantrip,
 * its identity, an Entity, a Loom). The value itself keeps what it holds: this is its printing.
 */
import { inspect, type InspectOptionsStylized } from "node:util";
import { redactingReplacer } from "./redact-stream.js";

export type Redact = (text: string) => string;

/** `util.inspect` of `fields` as one redacted text; strings are never cut into `'…' +` pieces. */
export function inspectRedacted(
  label: string,
  fields: unknown,
  options: InspectOptionsStylized,
  redact: Redact | undefined,
): string {
  const text = inspect(fields, { ...options, breakLength: Infinity, compact: false });
  return `${label} ${redact ? redact(text) : text}`;
}

/**
 * A JSON-ready copy of `value` (what a `toJSON` returns) with every string (keys included)
 * through `redact`: the replacer of every JSON exit (redact-stream.ts `redactedJson`), without
 * redacting the text, which must parse back.
 */
export function redactedCopy(value: unknown, redact: Redact | undefined): unknown {
  const text = JSON.stringify(value, redact ? redactingReplacer(redact) : undefined) as
    string | undefined;
  return JSON.parse(text ?? "null") as unknown;
}

/**
 * Gives a plain object non-enumerable `[util.inspect.custom]` and `toJSON` that print it redacted
 * (before it is frozen: a spread copy is plain data again).
 */
export function printRedacted<T extends object>(value: T, label: string, redact: Redact): T {
  Object.defineProperty(value, inspect.custom, {
    value: (depth: number, options: InspectOptionsStylized) =>
      depth < 0
        ? options.stylize(`[${label}]`, "special")
        : inspectRedacted(label, { ...value }, options, redact),
  });
  Object.defineProperty(value, "toJSON", { value: () => redactedCopy({ ...value }, redact) });
  return value;
}
