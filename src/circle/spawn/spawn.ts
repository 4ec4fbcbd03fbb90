import { Cantrip } from "../../core/cantrip.js";
import type { CastResult, Entity } from "../../core/entity.js";
import { SystemError, errorMessage } from "../../core/errors.js";
import type { CantripEvent } from "../../core/events.js";
import type { Identity } from "../../core/identity.js";
import type { Circle } from "../circle.js";
import type { Gate, GateContext } from "../gate.js";
import type { LLM } from "../../llm/contract.js";
import type { ChildLLMSource } from "./child-llms.js";
import { planChild } from "./plan.js";
import type { Proposal } from "./proposal.js";

/** A whole child cantrip named by the spell (`call_entity: { spell: ./child.yaml }`). */
export interface ChildTemplate {
  llm?: LLM;
  identity?: Identity;
  circle?: Circle;
}

/** What a call_entity gate was configured with at construction (CIRCLE-10). */
export interface SpawnConfig {
  /** LLMs children may use: by name, and the default per depth. */
  llms?: ChildLLMSource;
  /** A child spell's cantrip, loaded when first needed. */
  template?: () => Promise<ChildTemplate>;
  /** The children's medium when neither the proposal, the LLM nor the template decides. */
  medium?: string;
  /** Gates a proposal may name that neither the template nor the parent has: built-ins that reach nothing. */
  freeGate?: (name: string) => Gate | undefined;
}

export interface ParentView {
  entity: Entity;
  /** The parent's depth: 0 for an entity nobody spawned. */
  depth: number;
}

export function parentOf(ctx: GateContext): ParentView {
  const entity = ctx.services["entity"] as Entity | undefined;
  if (!entity)
    throw new SystemError("no_calling_entity", "call_entity can only be called by an entity");
  const depth = ctx.services["depth"];
  return { entity, depth: typeof depth === "number" ? depth : 0 };
}

/**
 * The spawn function (§5.1): builds the child's circle from the proposal, casts the child on its
 * intent with its own context (COMP-4), blocks until it ends (COMP-2), and returns its result.
 * A child that fails or is cut off comes back as an error the parent can catch (COMP-8).
 */
export async function spawnChild(
  proposal: Proposal,
  ctx: GateContext,
  config: SpawnConfig,
): Promise<unknown> {
  const parent = parentOf(ctx);
  const plan = await planChild(proposal, parent, config);
  const { cantrip: parentCantrip } = parent.entity;
  const child = new Cantrip({
    llm: plan.llm,
    identity: plan.identity,
    circle: plan.circle,
    loom: parentCantrip.loom, // LOOM-8 / LOOM-12: one tree for parent and children
    name: `${parentCantrip.name}/child`,
  });
  const controller = new AbortController();
  // COMP-9: whatever ends the parent truncates the child, with its own reason.
  const stop = (): void => controller.abort("parent_terminated");
  if (ctx.signal.aborted) stop();
  else ctx.signal.addEventListener("abort", stop, { once: true });
  const bus = parent.entity.bus;
  let result: CastResult;
  try {
    result = await child.cast(plan.intent, {
      parentTurnId: ctx.turnId,
      signal: controller.signal,
      services: { depth: parent.depth + 1 },
      ...(bus.active ? { onEvent: (e: CantripEvent) => bus.emit(e) } : {}),
    });
  } catch (err) {
    throw new SystemError("child_failed", `child entity failed: ${errorMessage(err)}`, {
      cause: err,
    });
  } finally {
    ctx.signal.removeEventListener("abort", stop);
  }
  if (result.terminated) return result.result;
  throw new SystemError(
    "child_truncated",
    `child entity was truncated (${result.reason}): ${String(result.result)}`,
  );
}
