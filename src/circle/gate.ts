import type { ToolDefinition } from "../core/contract.js";
import type { Entity } from "../core/entity.js";
import type { GateCallRecord } from "../core/medium.js";
import type { ApprovalRecord, Approver } from "../core/approval.js";
import { isJsonObject } from "../core/json.js";

export type { GateCallRecord } from "../core/medium.js";

/** A JSON Schema for a gate's arguments object. */
export interface ParameterSchema {
  type: "object";
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface GateContext {
  readonly entityId: string;
  readonly signal: AbortSignal;
  /** The id the turn that calls the gate will have in the loom (COMP-5 links children to it). */
  readonly turnId: string;
  /** The calling entity (call_entity spawns its children from it). */
  readonly entity: Entity;
  /** How deep the calling entity was spawned: 0 for one nobody spawned (COMP-6). */
  readonly depth: number;
  /** Told as the call begins (the loop's `tool_call` event, while someone listens). */
  readonly onStart?: ((gate: string, args: string) => void) | undefined;
  /** Told of a call answered without a record (`GateOutcome.unrecorded`): its `tool_result` event. */
  readonly onUnrecorded?: ((record: GateCallRecord) => void) | undefined;
  /** The turn's budget of recorded bytes (issue 20); every call of a medium turn has one. */
  readonly budget?: TurnBudget | undefined;
  /** Who answers the circle's approval questions (issue 25); none: every ask is denied. */
  readonly approver?: Approver | undefined;
  /** The turn's approval records: every question and its answer (issue 25). */
  readonly approvals?: ApprovalRecord[] | undefined;
  /**
   * What an `unless:` glob judged this call to reach, by argument name (issue 38; `Gate.reached`'s
   * values): a gate that reaches something else by the time it runs (a folder swapped for a link
   * since) refuses the call instead of running unasked.
   */
  readonly judged?: Readonly<Record<string, string>> | undefined;
}

export interface GateOutcome {
  record: GateCallRecord;
  /** The value the gate returned (the answer, for done); undefined on error. */
  value: unknown;
  ok: boolean;
  /** A call refused past the turn's budget after the first: answered, never recorded. */
  unrecorded?: true;
}

/** The bytes a turn's gate calls may record (gate-budget.ts): asked before and after each call. */
export interface TurnBudget {
  /** The call's refusal when the turn is past its budget, else undefined: the call may run. */
  before(name: string, encoded: string): GateOutcome | undefined;
  /** The outcome as the turn keeps it: itself when it fits, else a refusal. */
  settle(outcome: GateOutcome): GateOutcome;
}

/**
 * A host function that crosses the circle's boundary (§4.3). Dependencies are closed over at
 * construction (CIRCLE-10); the entity only sees the name, description and parameters.
 */
export interface Gate {
  readonly name: string;
  readonly description: string;
  readonly parameters: ParameterSchema;
  /** PROD-5: the result leaves the working context after the next turn; the loom keeps it. */
  readonly ephemeral?: boolean;
  execute(args: Record<string, unknown>, ctx: GateContext): unknown;
  /**
   * What a call reaches, by argument name (a file gate's path resolved inside its root), for the
   * circle's `unless:` globs (issue 38); an argument it leaves out is judged by its name
   * (`reachedByName`). Undefined for an argument means it cannot be told: the call asks.
   */
  readonly reached?: (
    args: Record<string, unknown>,
  ) => Readonly<Record<string, string | undefined>>;
  /**
   * Reaches what the gate's description and parameters come from when they live outside the
   * spell (an MCP server's tool list), before a cast is presented. Resolves true when they
   * changed; never rejects (a gate that could not learn them says why when it is called).
   */
  readonly prepare?: () => Promise<boolean>;
  /**
   * An entity whose circle has the gate holds what the gate runs on (an MCP server's process)
   * while it lives (a browser page is the entity's own); the function returned lets go. The
   * last to let go stops it.
   */
  readonly hold?: (entityId: string) => () => void;
}

export function toolDefinition(gate: Gate): ToolDefinition {
  return { name: gate.name, description: gate.description, parameters: { ...gate.parameters } };
}

/** Renders a gate's return value for the observation: strings as they are, the rest as JSON. */
export function renderResult(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "null";
  try {
    // JSON.stringify returns undefined for functions and symbols: say what it was.
    return JSON.stringify(value) ?? `[${typeof value}]`;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Checks arguments against the gate's schema: required keys and primitive types. A failure is
 * an error observation (LOOP-7 for a malformed done), never a crash of the loop.
 */
export function checkArguments(gate: Gate, args: Record<string, unknown>): string | null {
  const { properties = {}, required = [], additionalProperties } = gate.parameters;
  for (const key of required) {
    if (args[key] === undefined) return `missing required argument ${JSON.stringify(key)}`;
  }
  for (const key in args) {
    const value = args[key];
    const want = properties[key]?.type;
    if (typeof want === "string" && value !== undefined && !matchesType(want, value)) {
      return `argument ${JSON.stringify(key)} must be of type ${want}`;
    }
    if (additionalProperties === false && !(key in properties)) {
      return `unknown argument ${JSON.stringify(key)}`;
    }
  }
  return null;
}

function matchesType(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isJsonObject(value);
    default:
      return true;
  }
}
