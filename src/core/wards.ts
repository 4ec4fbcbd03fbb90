import { ConfigError } from "./errors.js";

/**
 * Wards are subtractive limits enforced by the runtime (CIRCLE-6). Every ward is a number
 * (composed by min), a boolean (composed by OR) — WARD-1, and WARD-2 for medium wards — or an
 * allowlist of names (composed by intersection: a child can only narrow it).
 */
export interface WardKind {
  type: "number" | "boolean" | "names";
  /** Guarantees the loop ends on its own (CIRCLE-2, LOOP-2). */
  terminates?: boolean;
  /** The medium(s) that own this ward (WARD-2); absent for wards of every circle. */
  medium?: string | readonly string[];
  description: string;
}

/**
 * Every ward, built here in one place: the loop's, the code medium's (WARD-2, MEDIUM-4: numbers,
 * so a child's sandbox can only be tighter) and composition's. The loader checks at compile time
 * that these names are exactly the schema's (spell/schema-types.ts, WARD_NAMES_MATCH_SCHEMA).
 */
export const wardKinds = {
  max_turns: { type: "number", terminates: true, description: "turns per cast before truncation" },
  timeout_ms: { type: "number", terminates: true, description: "wall-clock budget of a cast" },
  max_tokens: { type: "number", description: "total tokens per cast before truncation" },
  max_cost_usd: {
    type: "number",
    description:
      "USD per cast before truncation (reason cost); a turn of unknown price truncates (reason cost_unknown)",
  },
  max_depth: { type: "number", description: "how deep call_entity may nest (default 1)" },
  require_done_tool: { type: "boolean", description: "only the done gate terminates" },
  max_eval_ms: {
    type: "number",
    medium: "code",
    description: "compute time of one code run before the sandbox interrupts it (default 10000)",
  },
  max_memory_mb: {
    type: "number",
    medium: ["code", "bash"],
    description:
      "code: heap of one entity's sandbox in MiB; allocation beyond it is an error in the code (default 64). bash: what one command holds in MiB, its processes, /tmp and /dev/shm; past it the kernel refuses or kills and the turn is an error (default 1024)",
  },
  max_stack_kb: {
    type: "number",
    medium: "code",
    description: "call stack of one entity's sandbox in KiB (default and maximum 256)",
  },
  max_command_ms: {
    type: "number",
    medium: "bash",
    description:
      "wall-clock time of one bash command before its process tree is killed (default 30000)",
  },
  max_output_kb: {
    type: "number",
    medium: "bash",
    description:
      "stdout and stderr of one bash command, each, in KiB; the rest is cut with a marker (default 64)",
  },
  max_gate_record_kb: {
    type: "number",
    description:
      "bytes, in KiB, the gate calls of one turn may record (arguments and results); past it a gate call is an error the entity sees (default 16384)",
  },
  max_gate_request_kb: {
    type: "number",
    medium: "bash",
    description:
      "one gate call a command sends to the host, in KiB; a larger one is answered with an error and never runs (default 1024)",
  },
  max_gate_connections: {
    type: "number",
    medium: "bash",
    description:
      "gate calls of one command the host serves at once; up to 64 more wait, the rest are refused with an error (default 8)",
  },
  max_concurrent_children: {
    type: "number",
    description: "children of one call_entity_batch running at the same time (default 8)",
  },
  max_batch_size: {
    type: "number",
    description: "proposals one call_entity_batch may take (default 50)",
  },
  child_medium_allowlist: {
    type: "names",
    description:
      "the mediums a child of this circle may have (conversation, code, bash); default any. Down the tree the lists intersect",
  },
} as const satisfies Readonly<Record<string, WardKind>>;

export type WardName = keyof typeof wardKinds;

const kindOf = (name: string): WardKind | undefined =>
  Object.hasOwn(wardKinds, name) ? wardKinds[name as WardName] : undefined;

/** A ward's value: a number, a boolean, or a list of names. */
export type WardValue = number | boolean | readonly string[];

/** A ward as written: a one-key map, `{ max_turns: 10 }`. */
export type Ward = Readonly<Record<string, WardValue>>;

/** The resolved value of every ward named at least once. */
export type WardValues = Readonly<Record<string, WardValue>>;

export const DEFAULT_MAX_DEPTH = 1;

/** Composes ward lists: min for numbers, OR for booleans (WARD-1), intersection for names. */
export function composeWards(...lists: readonly (readonly Ward[] | WardValues)[]): WardValues {
  const out: Record<string, WardValue> = {};
  for (const list of lists) {
    const wards = Array.isArray(list) ? (list as readonly Ward[]) : [list as WardValues];
    for (const ward of wards) {
      for (const [name, value] of Object.entries(ward)) {
        const kind = kindOf(name);
        if (!kind) throw new ConfigError("unknown_ward", `unknown ward ${JSON.stringify(name)}`);
        checkValue(name, kind, value);
        out[name] = combine(kind, out[name], value);
      }
    }
  }
  return Object.freeze(out);
}

function combine(kind: WardKind, prev: WardValue | undefined, value: WardValue): WardValue {
  if (prev === undefined)
    return kind.type === "names" ? Object.freeze([...(value as string[])]) : value;
  if (kind.type === "number") return Math.min(prev as number, value as number);
  if (kind.type === "boolean") return prev || value;
  const allowed = new Set(value as readonly string[]);
  return Object.freeze((prev as readonly string[]).filter((n) => allowed.has(n)));
}

const WANT = {
  number: "a non-negative number",
  boolean: "true or false",
  names: "a list of names",
} as const;

function checkValue(name: string, kind: WardKind, value: unknown): void {
  const ok =
    kind.type === "boolean"
      ? typeof value === "boolean"
      : kind.type === "number"
        ? isNonNegativeNumber(value)
        : Array.isArray(value) && value.every((v) => typeof v === "string");
  if (!ok) {
    const want = WANT[kind.type];
    throw new ConfigError(
      "bad_ward_value",
      `ward ${name} must be ${want}, got ${JSON.stringify(value)}`,
    );
  }
}

const isNonNegativeNumber = (v: unknown): v is number =>
  typeof v === "number" && Number.isFinite(v) && v >= 0;

export const numberWard = (w: WardValues, name: WardName): number | undefined =>
  typeof w[name] === "number" ? w[name] : undefined;

export const boolWard = (w: WardValues, name: WardName): boolean => w[name] === true;

/** A names ward's list, or undefined when no circle up the tree set it (no restriction). */
export const namesWard = (w: WardValues, name: WardName): readonly string[] | undefined => {
  const v = w[name];
  return Array.isArray(v) ? (v as readonly string[]) : undefined;
};

export const hasTerminationWard = (w: WardValues): boolean =>
  Object.keys(w).some(
    (name) => (kindOf(name) as { terminates?: boolean } | undefined)?.terminates === true,
  );
