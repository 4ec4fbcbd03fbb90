import { ConfigError } from "./errors.js";

/**
 * Wards are subtractive limits enforced by the runtime (CIRCLE-6). Every ward is a number
 * (composed by min) or a boolean (composed by OR) — WARD-1, and WARD-2 for medium wards.
 */
export interface WardKind {
  type: "number" | "boolean";
  /** Guarantees the loop ends on its own (CIRCLE-2, LOOP-2). */
  terminates?: boolean;
  /** The medium that owns this ward (WARD-2); absent for wards of every circle. */
  medium?: string;
  description: string;
}

export const wardKinds: Readonly<Record<string, WardKind>> = {
  max_turns: { type: "number", terminates: true, description: "turns per cast before truncation" },
  timeout_ms: { type: "number", terminates: true, description: "wall-clock budget of a cast" },
  max_tokens: { type: "number", description: "total tokens per cast before truncation" },
  max_depth: { type: "number", description: "how deep call_entity may nest (default 1)" },
  require_done_tool: { type: "boolean", description: "only the done gate terminates" },
};

/** A ward as written: a one-key map, `{ max_turns: 10 }`. */
export type Ward = Readonly<Record<string, number | boolean>>;

/** The resolved value of every ward named at least once. */
export type WardValues = Readonly<Record<string, number | boolean>>;

export const DEFAULT_MAX_DEPTH = 1;

/** Composes ward lists: min for numbers, OR for booleans (WARD-1). */
export function composeWards(...lists: readonly (readonly Ward[] | WardValues)[]): WardValues {
  const out: Record<string, number | boolean> = {};
  for (const list of lists) {
    const wards = Array.isArray(list) ? (list as readonly Ward[]) : [list as WardValues];
    for (const ward of wards) {
      for (const [name, value] of Object.entries(ward)) {
        const kind = wardKinds[name];
        if (!kind) throw new ConfigError("unknown_ward", `unknown ward ${JSON.stringify(name)}`);
        checkValue(name, kind, value);
        const prev = out[name];
        out[name] =
          prev === undefined
            ? value
            : kind.type === "number"
              ? Math.min(prev as number, value as number)
              : prev || value;
      }
    }
  }
  return Object.freeze(out);
}

function checkValue(name: string, kind: WardKind, value: unknown): void {
  if (kind.type === "boolean" ? typeof value !== "boolean" : !isNonNegativeNumber(value)) {
    const want = kind.type === "boolean" ? "true or false" : "a non-negative number";
    throw new ConfigError(
      "bad_ward_value",
      `ward ${name} must be ${want}, got ${JSON.stringify(value)}`,
    );
  }
}

const isNonNegativeNumber = (v: unknown): v is number =>
  typeof v === "number" && Number.isFinite(v) && v >= 0;

/** Registers a medium-specific ward (WARD-2). */
export function registerWard(name: string, kind: WardKind): void {
  (wardKinds as Record<string, WardKind>)[name] = kind;
}

export const numberWard = (w: WardValues, name: string): number | undefined =>
  typeof w[name] === "number" ? w[name] : undefined;

export const boolWard = (w: WardValues, name: string): boolean => w[name] === true;

export const hasTerminationWard = (w: WardValues): boolean =>
  Object.keys(w).some((name) => wardKinds[name]?.terminates === true);
