import { errorMessage, ModelError } from "../../core/errors.js";
import { numberWard } from "../../core/wards.js";
import type { Gate, GateContext } from "../gate.js";
import { parentOf, parseProposal, spawnChild, type SpawnConfig } from "../spawn/index.js";

export const DEFAULT_CONCURRENT_CHILDREN = 8;
export const DEFAULT_BATCH_SIZE = 50;

const PROPOSAL_PROPERTIES = {
  intent: { type: "string", description: "What the child should pursue." },
  context: {
    description:
      "Data for the child: the variable `context` in a code child, text after the intent otherwise.",
  },
  gates: {
    type: "array",
    items: { type: "string" },
    description:
      "The child's gates (default: this circle's): names of this circle's gates, of gates offered to children, or of built-ins that need no configuration. done is always included.",
  },
  wards: {
    description:
      "The child's wards, e.g. [{ max_turns: 5 }]; composed with this circle's, so a child is never looser.",
  },
  llm: {
    type: "string",
    description: "The name of the LLM the child uses (default: this entity's).",
  },
  identity: {
    type: "object",
    description:
      "The child's identity: { system_prompt, temperature, ... } (default: a generic worker).",
  },
  medium: {
    type: "string",
    description:
      "The child's medium: conversation, code or bash (a child_medium_allowlist ward may narrow it).",
  },
};

/** call_entity (§5.1): one child, the parent blocks until it is done (COMP-2). */
export function callEntityGate(config: SpawnConfig): Gate {
  return {
    name: "call_entity",
    description:
      "Delegate a sub-task to a child entity with its own circle and a fresh context. Returns the child's answer; a child cut off by a ward returns { truncated: true, reason, turns, summary, last_utterance }; a child that fails throws an error.",
    parameters: { type: "object", properties: PROPOSAL_PROPERTIES, required: ["intent"] },
    execute: (args, ctx) => spawnChild(parseProposal(args), ctx, config),
  };
}

/** call_entity_batch (§5.2): children run concurrently, results come back in request order (COMP-3). */
export function callEntityBatchGate(config: SpawnConfig): Gate {
  return {
    name: "call_entity_batch",
    description:
      "Delegate several sub-tasks at once: a list of intents or call_entity proposals. Children run concurrently; the results come back in the same order, a child cut off by a ward as { truncated: true, ... }, a failed child as { error }.",
    parameters: {
      type: "object",
      properties: {
        intents: {
          type: "array",
          items: {
            anyOf: [
              { type: "string" },
              { type: "object", properties: PROPOSAL_PROPERTIES, required: ["intent"] },
            ],
          },
          description: "One item per child: an intent, or a proposal like call_entity's.",
        },
      },
      required: ["intents"],
    },
    execute: (args, ctx) => runBatch(args["intents"], ctx, config),
  };
}

async function runBatch(items: unknown, ctx: GateContext, config: SpawnConfig): Promise<unknown[]> {
  if (!Array.isArray(items))
    throw new ModelError("bad_proposal", "call_entity_batch takes a list of intents or proposals");
  const wards = parentOf(ctx).entity.cantrip.circle.wards;
  const maxBatch = numberWard(wards, "max_batch_size") ?? DEFAULT_BATCH_SIZE;
  if (items.length > maxBatch) {
    throw new ModelError(
      "batch_too_large",
      `call_entity_batch takes at most ${maxBatch} proposals (max_batch_size); got ${items.length}`,
    );
  }
  const limit = Math.max(
    1,
    numberWard(wards, "max_concurrent_children") ?? DEFAULT_CONCURRENT_CHILDREN,
  );
  const results: unknown[] = new Array<unknown>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      if (ctx.signal.aborted) {
        results[i] = { error: "not started: the parent was terminated" };
        continue;
      }
      try {
        results[i] = await spawnChild(parseProposal(items[i]), ctx, config);
      } catch (err) {
        results[i] = { error: errorMessage(err) }; // COMP-8, per child: the others go on
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
