/**
 * PROD-8: how a runtime value that holds a spell's `${env:…}` values prints itself — through the
 * spell's redaction, in `util.inspect` / `console.log` and in `JSON.stringify` alike (a Cantrip,
 * its identity, an Entity, a Loom). The value itself keeps what it holds: this is its printing.
 */
import { inspect, type InspectOptionsStylized } from "node:util";

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

/** A JSON-ready copy of `value` with every string (keys included) through `redact`. */
export function redactedJson(value: unknown, redact: Redact | undefined): unknown {
  const plain: unknown = JSON.parse(JSON.stringify(value) ?? "null");
  if (!redact) return plain;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x)]));
    return v;
  };
  return walk(plain);
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
  Object.defineProperty(value, "toJSON", { value: () => redactedJson({ ...value }, redact) });
  return value;
}
