import { ModelError } from "../../core/errors.js";
import type { Circle } from "../circle.js";
import type { Gate } from "../gate.js";
import { DELEGATION_GATES, DONE } from "../gate-names.js";
import { doneGate } from "../gates/done.js";
import type { Proposal } from "./proposal.js";
import type { ChildTemplate, SpawnConfig } from "./types.js";

/**
 * The child's gates (COMP-1, COMP-7): those the proposal names, else the template's, else the
 * parent's. A named gate is looked up, in order, in the template's circle, the parent's circle,
 * the gates call_entity offers children (`call_entity: { gates: [...] }`, configured by the spell),
 * and the registry's gates that reach nothing unconfigured (`done`, `echo`, `fetch` with no host). A
 * proposal never configures a gate: one that needs a root nobody declared is refused, so a child
 * reaches no more of the host than the spell wrote down. Delegation only while the child's
 * composed max_depth is above 0 (COMP-11); `done` always (CIRCLE-1).
 */
export function childGates(
  proposal: Proposal,
  parent: Circle,
  template: ChildTemplate | undefined,
  config: SpawnConfig,
  depth: number,
): Gate[] {
  const pool = template?.circle?.gates ?? parent.gates;
  const offered = new Map((config.offered ?? []).map((g) => [g.name, g]));
  const resolve = (name: string): Gate => {
    const gate =
      pool.get(name) ?? parent.gates.get(name) ?? offered.get(name) ?? config.registry?.free(name);
    if (!gate)
      throw refusal(name, [...pool.keys(), ...parent.gates.keys(), ...offered.keys()], config);
    return gate;
  };
  const chosen = proposal.gates ? proposal.gates.map(resolve) : [...pool.values()];
  const gates = new Map<string, Gate>();
  for (const gate of chosen) {
    if (depth <= 0 && DELEGATION_GATES.includes(gate.name)) continue;
    gates.set(gate.name, gate);
  }
  if (!gates.has(DONE)) gates.set(DONE, doneGate()); // CIRCLE-1: every circle, a child's too
  return [...gates.values()];
}

/** Why a named gate cannot be the child's: nobody configured it, or no such gate exists. */
function refusal(name: string, reachable: string[], config: SpawnConfig): ModelError {
  const free = config.registry?.names().filter((n) => config.registry?.isFree(n));
  const may = [...new Set([...reachable, ...(free ?? [DONE])])].sort().join(", ");
  if (!config.registry) {
    return new ModelError(
      "gate_unavailable",
      `call_entity: gate ${JSON.stringify(name)} is not available to a child; a child may name: ${may}`,
    );
  }
  const needs = config.registry.dependencies(name);
  if (needs === undefined) {
    return new ModelError(
      "unknown_gate",
      `call_entity: unknown gate ${JSON.stringify(name)}; a child may name: ${may}`,
    );
  }
  return new ModelError(
    "gate_unavailable",
    `call_entity: gate ${JSON.stringify(name)} is not available to a child: it takes ${needs.join(", ")}, ` +
      `which neither this circle nor call_entity's gates declare (a proposal cannot configure a gate; ` +
      `offer it with call_entity: { gates: [{ ${name}: { … } }] }); a child may name: ${may}`,
  );
}
