/**
 * Comparison with the suite's magic values: `not_null`, `greater_than(N)`, `"turns[N].id"`,
 * and symbolic entity names that bind on first use. Returns a mismatch message or null.
 */
export interface MatchContext {
  turnIds: string[];
  bindings: Map<string, unknown>;
}

const GREATER = /^greater_than\((-?\d+(?:\.\d+)?)\)$/;
const TURN_REF = /^turns\[(\d+)\]\.id$/;

export function matchValue(
  expected: unknown,
  actual: unknown,
  ctx: MatchContext,
  path: string,
): string | null {
  if (expected === "not_null")
    return actual === null || actual === undefined
      ? `${path}: expected a value, got ${show(actual)}`
      : null;
  if (typeof expected === "string") {
    const gt = GREATER.exec(expected);
    if (gt)
      return typeof actual === "number" && actual > Number(gt[1])
        ? null
        : `${path}: expected > ${gt[1]}, got ${show(actual)}`;
    const ref = TURN_REF.exec(expected);
    if (ref) {
      const id = ctx.turnIds[Number(ref[1])];
      return actual === id
        ? null
        : `${path}: expected ${expected} (${show(id)}), got ${show(actual)}`;
    }
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected a list, got ${show(actual)}`;
    if (expected.length !== actual.length)
      return `${path}: expected ${expected.length} items, got ${actual.length}: ${show(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const m = matchValue(expected[i], actual[i], ctx, `${path}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object")
      return `${path}: expected an object, got ${show(actual)}`;
    for (const [key, want] of Object.entries(expected)) {
      const got = (actual as Record<string, unknown>)[key];
      const m = isSymbolicKey(key)
        ? matchSymbol(want, got, ctx, `${path}.${key}`)
        : matchValue(want, got, ctx, `${path}.${key}`);
      if (m) return m;
    }
    return null;
  }
  return looselyEqual(expected, actual)
    ? null
    : `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

/** Equal, or equal as strings when the types differ (the suite writes 42 for "42"). */
export function looselyEqual(expected: unknown, actual: unknown): boolean {
  if (expected === actual) return true;
  if (expected === null || actual === null || expected === undefined || actual === undefined)
    return false;
  if (typeof expected === "object" || typeof actual === "object")
    return JSON.stringify(expected) === JSON.stringify(actual);
  return scalarText(expected) === scalarText(actual);
}

const scalarText = (v: unknown): string =>
  typeof v === "string" ? v : (JSON.stringify(v) ?? typeof v);

const isSymbolicKey = (key: string): boolean => key === "entity_id" || key === "parent_entity_id";

/** `entity_id: parent` binds "parent" to the first id it meets; later uses must agree. */
export function matchSymbol(
  expected: unknown,
  actual: unknown,
  ctx: MatchContext,
  path: string,
): string | null {
  if (typeof expected !== "string" || /^ent_/.test(expected) || expected === "not_null")
    return matchValue(expected, actual, ctx, path);
  const bound = ctx.bindings.get(expected);
  if (bound === undefined) {
    if (actual === undefined || actual === null)
      return `${path}: ${expected} cannot bind to a missing value`;
    for (const [name, value] of ctx.bindings) {
      if (value === actual)
        return `${path}: ${expected} and ${name} are the same entity ${show(actual)}`;
    }
    ctx.bindings.set(expected, actual);
    return null;
  }
  return bound === actual
    ? null
    : `${path}: expected ${expected} (${show(bound)}), got ${show(actual)}`;
}

export function show(v: unknown): string {
  const s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** A result as text, for a pattern: a string as it is, anything else as JSON. */
export const textOf = (v: unknown): string =>
  typeof v === "string" ? v : (JSON.stringify(v) ?? "");

/** A result as a value, for a schema: a string holding JSON is read, any other kept as it is. */
export function resultValue(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
