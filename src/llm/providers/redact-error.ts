import { withoutParsedQuote } from "../../core/cut-quote.js";
import { redactDeep } from "../../core/redact-stream.js";

/** How deep a chain of causes is redacted (an SDK wraps at most two or three). */
const CAUSE_DEPTH = 8;
/** What stands for the part of a chain of causes deeper than CAUSE_DEPTH. */
const TOO_DEEP = "[unreadable: too deep to redact]";

/**
 * An error's own text redacted where it is: message, stack, every own property (enumerable or
 * not, string- or symbol-keyed: a native `cause`, an aggregate error's `errors`), its body
 * (copied where a secret was), its headers (a new Headers where a name or value held one), the
 * errors it holds and its causes. Other objects (a class instance) are left as they are. Where a
 * property cannot be redefined (a frozen error), a redacted copy of the error is given back.
 */
export function redactedError(
  err: unknown,
  redact: (t: string) => string,
  depth = 0,
  seen = new Set<object>(),
): unknown {
  if (typeof err === "string") return redact(err);
  if (err === null || typeof err !== "object" || seen.has(err)) return err;
  if (depth > CAUSE_DEPTH) return TOO_DEEP;
  seen.add(err);
  // A JSON.parse error quotes ten characters of what it read: the start of a key, maybe.
  if (err instanceof SyntaxError) {
    const inner = redact;
    redact = (t) => inner(withoutParsedQuote(t));
  }
  const e = err as Record<PropertyKey, unknown>;
  const keys = new Set<PropertyKey>(["message", "stack", ...Reflect.ownKeys(e)]);
  const changes: [PropertyKey, PropertyKey, unknown][] = [];
  for (const key of keys) {
    let value: unknown;
    try {
      value = e[key];
    } catch {
      continue; // a getter that throws shows nothing
    }
    const next = redactedValue(key, value, redact, depth, seen);
    const name = typeof key === "symbol" ? redactedSymbol(key, redact) : key;
    if (next !== value || name !== key) changes.push([key, name, next]);
  }
  let copy = false;
  for (const [key, name, next] of changes) {
    try {
      if (name !== key && !Reflect.deleteProperty(e, key)) throw new TypeError("not deleted");
      const enumerable = Object.getOwnPropertyDescriptor(e, name)?.enumerable ?? false;
      Object.defineProperty(e, name, {
        value: next,
        writable: true,
        configurable: true,
        enumerable,
      });
      if (e[name] !== next) throw new TypeError("not redefined"); // an accessor up the chain
    } catch {
      copy = true;
    }
  }
  return copy ? redactedCopy(e, keys, changes) : err;
}

/** A copy of the same class holding the redacted values, and only them. */
function redactedCopy(
  e: Record<PropertyKey, unknown>,
  keys: Set<PropertyKey>,
  changes: [PropertyKey, PropertyKey, unknown][],
): unknown {
  const out = Object.create(Object.getPrototypeOf(e) as object | null) as Record<
    PropertyKey,
    unknown
  >;
  for (const key of keys) {
    const change = changes.find(([k]) => k === key);
    let value: unknown;
    try {
      value = change ? change[2] : e[key];
    } catch {
      continue;
    }
    const name = change ? change[1] : key;
    const enumerable = Object.getOwnPropertyDescriptor(e, key)?.enumerable ?? false;
    Object.defineProperty(out, name, { value, writable: true, configurable: true, enumerable });
  }
  return out;
}

/** One property's value redacted: text, a header list, a body, the errors it holds. */
function redactedValue(
  key: PropertyKey,
  value: unknown,
  redact: (t: string) => string,
  depth: number,
  seen: Set<object>,
): unknown {
  if (typeof value === "string") return redact(value);
  if (key === "cause" || value instanceof Error)
    return redactedError(value, redact, depth + 1, seen);
  if (isHeaders(value)) return redactedHeaders(value, redact);
  if (Array.isArray(value) && value.some((v) => v instanceof Error)) {
    // The errors an aggregate error (or an SDK) holds: each redacted as an error, kept one.
    const out = value.map((v) =>
      v instanceof Error
        ? redactedError(v, redact, depth + 1, seen)
        : redactedValue(0, v, redact, depth, seen),
    );
    return out.every((v, i) => v === value[i]) ? value : out;
  }
  if (isPlain(value)) return redactedPlain(value, redact);
  return value;
}

/** A symbol key whose description holds a secret is replaced by one that does not. */
function redactedSymbol(key: symbol, redact: (t: string) => string): symbol {
  const description = key.description;
  if (description === undefined || Symbol.keyFor(key) !== undefined) return key;
  const shown = redact(description);
  return shown === description ? key : Symbol(shown);
}

/** A body as JSON gave it (an object or array of its own): what an SDK keeps of an answer. */
function isPlain(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || proto === Array.prototype;
}

/** A plain value redacted; one too deep or cyclic to walk is replaced, never thrown on. */
function redactedPlain(value: object, redact: (t: string) => string): unknown {
  try {
    return redactDeep(value, redact);
  } catch {
    return TOO_DEEP;
  }
}

function isHeaders(value: unknown): value is Headers {
  return typeof Headers !== "undefined" && value instanceof Headers;
}

function redactedHeaders(headers: Headers, redact: (t: string) => string): Headers {
  const entries: [string, string][] = [];
  let changed = false;
  headers.forEach((value, name) => {
    const shown = redact(value);
    // A name holding a secret is left out: "[REDACTED]" is no header name.
    if (redact(name) !== name) changed = true;
    else {
      if (shown !== value) changed = true;
      entries.push([name, shown]);
    }
  });
  return changed ? new Headers(entries) : headers;
}
