/**
 * Types the runtime keeps by hand are held against the types generated from the schema: the
 * compiler fails here when one drifts from the other, in either direction. The runtime's own
 * layers may not read src/generated/, so this check lives in the loader.
 */
import type { GateBehavior } from "../circle/gates/behavior.js";
import type { WardName } from "../core/wards.js";
import type {
  DeclaredGate,
  ScriptedResponse as SchemaScriptedResponse,
  Ward,
} from "../generated/spell.js";
import type { ScriptedResponse } from "../llm/providers/scripted.js";

type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Assignable both ways and the same keys: an optional field on one side only is a drift too. */
type Same<A, B> = Mutual<A, B> extends true ? Mutual<keyof A, keyof B> : false;

/** Every ward the schema names is a ward of the runtime, and no other. */
export const WARD_NAMES_MATCH_SCHEMA: Same<keyof Ward, WardName> = true;
/** The script format (a spell's `responses:`, tests.yaml) is the scripted provider's input. */
export const SCRIPT_FORMAT_MATCHES_SCHEMA: Same<SchemaScriptedResponse, ScriptedResponse> = true;
/** A declared gate's `behavior:` is what behaviorGate takes. */
export const GATE_BEHAVIOR_MATCHES_SCHEMA: Same<
  NonNullable<DeclaredGate["behavior"]>,
  GateBehavior
> = true;
