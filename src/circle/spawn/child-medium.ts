import { ModelError } from "../../core/errors.js";
import { namesWard } from "../../core/wards.js";
import type { Circle } from "../circle.js";
import type { Medium } from "../medium.js";
import { createCodeMedium } from "../mediums/code/index.js";
import { mediumRegistry, normalizeMediumName } from "../mediums/index.js";
import type { Proposal } from "./proposal.js";
import type { ChildTemplate } from "./types.js";

/**
 * The child's medium by name (COMP-1: conversation, code or bash, whatever the parent's), once
 * the parent's `child_medium_allowlist` allows it. A code child given `context` has it as a
 * variable (§3.3), beside a child spell's own `circle.state`; a child spell's own medium is kept; a bash child of a bash circle works in the
 * parent's workspace with the parent's isolation (the same root, writability and sandbox: never
 * looser); any other bash child gets the registry's: the working folder, read-only, in bubblewrap.
 */
export function childMedium(
  name: string,
  proposal: Proposal,
  parent: Circle,
  template: ChildTemplate | undefined,
): Medium {
  checkAllowlist(name, parent);
  if (name === "code" && proposal.context !== undefined) {
    // A child spell's own circle.state stays beside the context the proposal hands over.
    const own = template?.circle?.medium.name === "code" ? template.circle.medium.state : undefined;
    return createCodeMedium({ state: { ...own, context: proposal.context } });
  }
  if (template?.circle && template.circle.medium.name === name) return template.circle.medium;
  if (name === "bash" && parent.medium.name === "bash") return parent.medium;
  const medium = Object.hasOwn(mediumRegistry, name) ? mediumRegistry[name] : undefined;
  if (!medium) {
    throw new ModelError(
      "unknown_medium",
      `call_entity: unknown medium ${JSON.stringify(name)}; mediums: ${Object.keys(mediumRegistry).join(", ")}`,
    );
  }
  return medium;
}

/**
 * The ward `child_medium_allowlist` (seed 002 "Wards"): a child whose medium the list does not
 * name is refused before it is built, with an error the parent reads. The list is a ward, so a
 * child inherits it and its own list can only narrow it (intersection, down the tree).
 */
function checkAllowlist(name: string, parent: Circle): void {
  const list = namesWard(parent.wards, "child_medium_allowlist");
  if (list === undefined) return;
  const allowed = list.map(normalizeMediumName);
  if (allowed.includes(name)) return;
  throw new ModelError(
    "child_medium_not_allowed",
    `call_entity refused (child_medium_not_allowed): a child in the ${name} medium is not allowed here; ` +
      `child_medium_allowlist: [${allowed.join(", ")}]` +
      (allowed.length
        ? `; ask for medium: ${JSON.stringify(allowed[0])}`
        : "; no child may be cast here"),
  );
}
