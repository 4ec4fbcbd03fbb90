/** Expectations on turns (thread, loom, children) and on errors. */
import { ConfigError, errorMessage } from "../core/errors.js";
import type { Turn } from "../loom/records/index.js";
import type { Outcome } from "./act.js";
import type { Built } from "./build.js";
import { matchValue, show, type MatchContext } from "./match.js";

/** Turns of entities no cast of the case produced: the children (LOOM-8, LOOM-12). */
export function childTurns(o: Outcome, b: Built): Turn[] {
  const top = new Set(o.casts.map((c) => c.entityId));
  return b.loom.turns().filter((t) => !top.has(t.entity_id));
}

const TURN_KEYS = new Set([
  "sequence",
  "is_error",
  "gate_calls",
  "terminated",
  "truncated",
  "reward",
  "id",
  "parent_id",
  "entity_id",
  "metadata",
  "utterance",
  "observation",
  "observation_contains",
  "reason",
  "role",
]);

export function matchTurns(
  want: unknown[],
  turns: Turn[],
  m: MatchContext,
  path: string,
): string | null {
  if (want.length > turns.length)
    return `${path}: expected at least ${want.length} turns, got ${turns.length}`;
  for (let i = 0; i < want.length; i++) {
    const w = (want[i] ?? {}) as Record<string, unknown>;
    const t = turns[i]!;
    for (const [key, value] of Object.entries(w)) {
      if (!TURN_KEYS.has(key))
        throw new ConfigError(
          "unsupported_expectation",
          `unsupported expectation: ${path}[].${key}`,
        );
      const r =
        key === "observation_contains"
          ? t.observation.includes(String(value))
            ? null
            : `${path}[${i}].observation ${show(t.observation)} does not contain ${show(value)}`
          : key === "gate_calls" &&
              Array.isArray(value) &&
              value.every((v) => typeof v === "string")
            ? matchValue(
                value,
                t.gate_calls.map((g) => g.gate_name),
                m,
                `${path}[${i}].gate_calls`,
              )
            : matchValue({ [key]: value }, t, m, `${path}[${i}]`);
      if (r) return r;
    }
  }
  return null;
}

export function parseMaybe(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export function checkError(want: unknown, error: unknown): string | null {
  if (error === undefined)
    return `expected an error containing ${show(want)}, but every step succeeded`;
  const message = errorMessage(error);
  return message.toLowerCase().includes(String(want).toLowerCase())
    ? null
    : `expected an error containing ${show(want)}, got: ${message}`;
}
