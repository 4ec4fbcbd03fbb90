/**
 * PROD-8 for a loaded document: its `document` (`spell`), `source`, `intent` and `tests` hold
 * the `${env:…}` values (an API key, say) the file was written with. As a Cantrip keeps its
 * LLM's key in ES private fields and prints through its spell's redaction, a loaded value keeps
 * those in a closure, reached by name only (not enumerable: `Object.values`, `{ ...loaded }`
 * and JSON never see them), and prints through its redactor: `util.inspect` / `console.log` at
 * any depth, `JSON.stringify` and `String` show every secret as [REDACTED]. Reading
 * `loaded.spell` (or `.document`) is the documented way to the real, expanded configuration;
 * even that object and every object in it print redacted (a non-enumerable `util.inspect.custom`).
 */
import { inspect, type InspectOptionsStylized } from "node:util";
import { redactDeep } from "../core/redact-stream.js";

type Redact = (text: string) => string;

/**
 * `shown` with the `hidden` fields defined on it as getters that are not enumerable, and printing
 * through `redact`. `label` names it when printed (`LoadedSpell { … }`). Returns `shown`.
 */
export function withHiddenConfig<T extends object>(
  shown: T,
  hidden: Record<string, unknown>,
  redact: Redact,
  label: string,
): T {
  for (const [key, value] of Object.entries(hidden))
    Object.defineProperty(shown, key, { get: () => value, enumerable: false });
  const printed = () => ({ ...shown, document: hidden["document"] });
  // JSON holds what is data: not the compiled value (a Cantrip holds its loom and circle).
  const data = () => {
    const { value: _value, cantrip: _cantrip, ...rest } = printed() as Record<string, unknown>;
    return rest;
  };
  Object.defineProperties(shown, {
    [inspect.custom]: {
      value(depth: number, options: InspectOptionsStylized): string {
        if (depth < 0) return options.stylize(`[${label}]`, "special");
        return `${label} ${redactedInspect(printed(), options, redact)}`;
      },
    },
    // Encoded first (the redactor becomes how many secrets it knows), then every string redacted.
    toJSON: {
      value: () => redactDeep(JSON.parse(JSON.stringify(data(), once())) as unknown, redact),
    },
    toString: { value: () => redact(`[${label} ${(shown as { file?: string }).file ?? ""}]`) },
  });
  printsRedacted(hidden["document"], redact);
  return shown;
}

/**
 * The objects being printed by a hook below: each hook prints a copy with `util.inspect` anew,
 * whose own circular check cannot see the callers (a YAML alias can make a document circular).
 */
const printing = new Set<object>();

/**
 * Every object and array of a document tree prints (util.inspect) through `redact`: a debug
 * line of `loaded.spell.llm` shows no key. The hook is a non-enumerable symbol: JSON, spread,
 * structuredClone and schema checks do not see it.
 */
function printsRedacted(value: unknown, redact: Redact, seen = new Set<object>()): void {
  if (value === null || typeof value !== "object" || seen.has(value)) return;
  seen.add(value);
  if (Object.isExtensible(value) && !Object.hasOwn(value, inspect.custom))
    Object.defineProperty(value, inspect.custom, {
      value(this: object, depth: number, options: InspectOptionsStylized): string {
        if (depth < 0)
          return options.stylize(Array.isArray(this) ? "[Array]" : "[Object]", "special");
        if (printing.has(this)) return options.stylize("[Circular]", "special");
        const copy = Array.isArray(this) ? [...(this as unknown[])] : { ...this };
        printing.add(this);
        try {
          return redactedInspect(copy, { ...options, depth }, redact);
        } finally {
          printing.delete(this);
        }
      },
    });
  for (const child of Object.values(value)) printsRedacted(child, redact, seen);
}

/** A JSON replacer writing an object met again (a YAML alias, a cycle) as "[Circular]". */
function once() {
  const seen = new WeakSet<object>();
  return (_key: string, value: unknown): unknown => {
    if (value === null || typeof value !== "object") return value;
    if (seen.has(value)) return "[Circular]";
    seen.add(value);
    return value;
  };
}

/** `util.inspect` of `value`, redacted. Strings are never cut into `'…' +` pieces, so a secret is whole when it is redacted. */
function redactedInspect(value: unknown, options: InspectOptionsStylized, redact: Redact): string {
  return redact(inspect(value, { ...options, breakLength: Infinity, compact: false }));
}
