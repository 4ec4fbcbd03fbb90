export {
  spawnChild,
  parentOf,
  type SpawnConfig,
  type ChildTemplate,
  type ParentView,
} from "./spawn.js";
export { planChild, childWards, CHILD_IDENTITY, DELEGATION_GATES, type ChildPlan } from "./plan.js";
export { parseProposal, type Proposal } from "./proposal.js";
export { combineSources, type ChildLLMChoice, type ChildLLMSource } from "./child-llms.js";
