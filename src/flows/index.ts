/**
 * Summoner routes, tapes, the receive/send cycle and DNA (seed 003, profile 0.1.0).
 * Build a Flow in code, or load a `kind: flow` document (src/spell/kinds/flow-kind.ts).
 */
export { PROFILE_ID, PROFILE_VERSION } from "./version.js";
export { accepts, nodeText, plain, ALL, type Node } from "./node.js";
export { parseNode, parseRoute, RouteSyntaxError } from "./parse.js";
export {
  activated,
  compatible,
  gatesOf,
  isInitial,
  nodesOf,
  routeText,
  ACTIONS,
  type Action,
  type ArrowRoute,
  type ObjectRoute,
  type Route,
} from "./route.js";
export {
  Tape,
  TAPE_SHAPES,
  type TapeDelta,
  type TapeKey,
  type TapeShape,
  type TapeValue,
} from "./tape.js";
export { comparePriority, type Priority } from "./priority.js";
export {
  move,
  stay,
  test,
  toEvent,
  type FlowEvent,
  type HandlerIdentity,
  type HookFn,
  type ReceiverFn,
  type ReceiverInput,
  type SenderFn,
  type SenderInput,
} from "./handler.js";
export {
  Flow,
  type FlowOptions,
  type Registration,
  type RegisterOptions,
  type SenderOptions,
} from "./registry.js";
export { FlowRunner, type CycleResult, type Emission } from "./cycle.js";
export type { CycleTrace, ActivationTrace, EmissionTrace, DropTrace } from "./trace.js";
export { DEFAULT_FLOW_LIMITS, FLOW_WARDS, flowLimits, type FlowLimits } from "./limits.js";
export {
  canonicalJson,
  flowDna,
  prettyJson,
  signDna,
  verifyDna,
  type Dna,
  type SignedDna,
} from "./dna.js";
