export {
  spawnChild,
  parentOf,
  type SpawnConfig,
  type ChildTemplate,
  type GateLookup,
  type ParentView,
} from "./spawn.js";
export { planChild, childWards, CHILD_IDENTITY, type ChildPlan } from "./plan.js";
export { DELEGATION_GATES } from "../gate-names.js";
export { parseProposal, type Proposal } from "./proposal.js";
export { combineSources, type ChildLLMChoice, type ChildLLMSource } from "./child-llms.js";
export { truncatedChild, type TruncatedChild } from "./outcome.js";
