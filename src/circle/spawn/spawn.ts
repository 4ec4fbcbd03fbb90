import { Cantrip } from "../../core/cantrip.js";
import { SystemError, errorMessage } from "../../core/errors.js";
import type { CantripEvent } from "../../core/events.js";
import { Circle } from "../circle.js";
import type { GateContext } from "../gate.js";
import { truncatedChild } from "./outcome.js";
import { planChild } from "./plan.js";
import type { Proposal } from "./proposal.js";
import type { ParentView, SpawnConfig } from "./types.js";

export type { ChildTemplate, GateLookup, ParentView, SpawnConfig } from "./types.js";

export function parentOf(ctx: GateContext): ParentView {
  const { entity, depth } = ctx;
  const circle = entity.cantrip.circle;
  if (!(circle instanceof Circle))
    throw new SystemError(
      "no_calling_entity",
      "call_entity can only be called from a circle's entity",
    );
  return { entity, circle, depth };
}

/**
 * The spawn function (§5.1): builds the child's circle from the proposal, casts the child on its
 * intent with its own context (COMP-4), blocks until it ends (COMP-2), and returns its result.
 * A child cut off by a ward returns a TruncatedChild value (LOOP-4); only a child that fails
 * comes back as an error the parent can catch (COMP-8).
 */
export async function spawnChild(
  proposal: Proposal,
  ctx: GateContext,
  config: SpawnConfig,
): Promise<unknown> {
  const parent = parentOf(ctx);
  const plan = await planChild(proposal, parent, config);
  const parentCantrip = parent.entity.cantrip;
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
  const result = await child
    .cast(plan.intent, {
      parentTurnId: ctx.turnId,
      // Its scripted models go on in its parent's cast (or, under a summoned entity, in themselves).
      within: { places: parent.entity.places },
      signal: controller.signal,
      depth: parent.depth + 1,
      // Issue 25: a child's questions go to whoever answers its parent's.
      onApproval: ctx.approver,
      ...(bus.active ? { onEvent: (e: CantripEvent) => bus.emit(e) } : {}),
    })
    .finally(() => ctx.signal.removeEventListener("abort", stop));
  if (result.status === "failed")
    throw new SystemError("child_failed", `child entity failed: ${errorMessage(result.error)}`, {
      cause: result.error,
    });
  if (result.status === "terminated") return result.result;
  return truncatedChild(result);
}
