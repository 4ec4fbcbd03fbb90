import { ModelError } from "../../core/errors.js";
import { createIdentity, type Identity } from "../../core/identity.js";
import { composeWards, DEFAULT_MAX_DEPTH, numberWard, type WardValues } from "../../core/wards.js";
import type { LLM, ToolChoice } from "../../core/contract.js";
import { Circle } from "../circle.js";
import { normalizeMediumName } from "../mediums/index.js";
import { childGates } from "./child-gates.js";
import { childMedium } from "./child-medium.js";
import type { Proposal } from "./proposal.js";
import type { ChildTemplate, ParentView, SpawnConfig } from "./types.js";

/** COMP-10: a worker, not a clone — never the parent's system prompt. */
export const CHILD_IDENTITY =
  "You are a child entity. Pursue the intent and return the result: call done with it when finished.";

export interface ChildPlan {
  llm: LLM;
  identity: Identity;
  circle: Circle;
  /** The child's first user message: the intent, and the context for a child without variables. */
  intent: string;
}

/**
 * The child's cantrip, built independently of the parent (COMP-1, COMP-7): its own LLM,
 * identity, medium and gates — the parent only constrains it through ward composition.
 */
export async function planChild(
  proposal: Proposal,
  parent: ParentView,
  config: SpawnConfig,
): Promise<ChildPlan> {
  const parentCantrip = parent.entity.cantrip;
  const template = config.template;
  const wards = childWards(parent.circle.wards, template?.circle?.wards, proposal);
  const choice = await pickLLM(proposal, parent, config, template);
  const mediumName = normalizeMediumName(
    proposal.medium ??
      choice?.medium ??
      template?.circle?.medium.name ??
      config.medium ??
      parent.circle.medium.name,
  );
  const medium = childMedium(mediumName, proposal, parent.circle, template);
  const gates = childGates(
    proposal,
    parent.circle,
    template,
    config,
    numberWard(wards, "max_depth") ?? 0,
  );
  return {
    llm: choice?.llm ?? template?.llm ?? parentCantrip.llm,
    identity: childIdentity(proposal, template),
    // Issue 25: the parent's approvals stay on the child; the child's own only add to them.
    circle: new Circle({
      medium,
      gates,
      wards,
      approvals: parent.circle.approvals.compose(template?.circle?.approvals),
    }),
    intent:
      mediumName === "code" || proposal.context === undefined
        ? proposal.intent
        : withContext(proposal.intent, proposal.context),
  };
}

/**
 * WARD-1: the parent's wards compose onto the child's — numbers by min, booleans by OR — so a
 * child can only be tighter. COMP-6: the child gets one level of depth less.
 */
export function childWards(
  parent: WardValues,
  template: WardValues | undefined,
  proposal: Proposal,
): WardValues {
  const depth = numberWard(parent, "max_depth") ?? DEFAULT_MAX_DEPTH;
  if (depth <= 0) {
    throw new ModelError(
      "delegation_warded_off",
      "call_entity is warded off: max_depth is 0 in this circle, so it cannot delegate",
    );
  }
  const { max_depth: _ignored, ...inherited } = parent;
  return composeWards(inherited, template ?? {}, proposal.wards ?? [], { max_depth: depth - 1 });
}

async function pickLLM(
  proposal: Proposal,
  parent: ParentView,
  config: SpawnConfig,
  template: ChildTemplate | undefined,
) {
  const depth = parent.depth + 1;
  const parentLLM = parent.entity.cantrip.llm;
  if (proposal.llm !== undefined) {
    const named = await config.llms?.pick(proposal.llm, depth);
    if (named) return named;
    if (proposal.llm === parentLLM.name) return { llm: parentLLM };
    if (template?.llm && proposal.llm === template.llm.name) return { llm: template.llm };
    const known = [...new Set([...(config.llms?.names() ?? []), parentLLM.name])];
    throw new ModelError(
      "unknown_llm",
      `call_entity: no llm named ${JSON.stringify(proposal.llm)}; children may use: ${known.join(", ")}`,
    );
  }
  if (template?.llm) return { llm: template.llm };
  return config.llms?.pick(undefined, depth);
}

function childIdentity(proposal: Proposal, template: ChildTemplate | undefined): Identity {
  if (proposal.identity) {
    const { system_prompt, tool_choice, ...hyperparameters } = proposal.identity;
    if (
      system_prompt !== undefined &&
      system_prompt !== null &&
      typeof system_prompt !== "string"
    ) {
      throw new ModelError("bad_proposal", "call_entity: identity.system_prompt must be text");
    }
    return createIdentity({
      systemPrompt: system_prompt ?? CHILD_IDENTITY,
      hyperparameters,
      ...(typeof tool_choice === "string" ? { toolChoice: tool_choice as ToolChoice } : {}),
    });
  }
  return template?.identity ?? createIdentity({ systemPrompt: CHILD_IDENTITY });
}

function withContext(intent: string, context: unknown): string {
  const text = typeof context === "string" ? context : JSON.stringify(context, null, 2);
  return `${intent}\n\nContext:\n${text}`;
}
