import { DELEGATION_GATES } from "../circle/gate-names.js";
import { normalizeMediumName } from "../circle/mediums/index.js";
import type { ChildTemplate } from "../circle/spawn/index.js";
import type { Spell } from "../generated/spell.js";
import { dependenciesPath, type GateSpec } from "./resolve.js";
import type { Warning } from "./rewrite.js";
import type { Locate } from "./validate.js";

/**
 * A circle whose `child_medium_allowlist` leaves out the medium its children get by default:
 * every child whose proposal names no medium would be refused at run time. Said once at load,
 * as a warning (a proposal that names an allowed medium still works), at the gate that sets the
 * default — `call_entity: { medium }`, a child spell's circle — or at the circle's own medium.
 */
export function childMediumWarnings(
  spell: Spell,
  gates: readonly (GateSpec | undefined)[],
  medium: string,
  locate: Locate,
): Warning[] {
  const allowed = allowlistOf(spell);
  if (allowed === undefined) return [];
  const out: Warning[] = [];
  const list = `child_medium_allowlist [${allowed.join(", ")}]`;
  gates.forEach((gate, i) => {
    if (!gate || !DELEGATION_GATES.includes(gate.name)) return;
    const deps = dependenciesPath(gate, ["circle", "gates", i]);
    const named = gate.deps["medium"];
    const template = (gate.deps["template"] as ChildTemplate | undefined)?.circle?.medium.name;
    const [child, from, at] =
      typeof named === "string"
        ? [normalizeMediumName(named), `${gate.name}: { medium: ${named} }`, [...deps, "medium"]]
        : template !== undefined
          ? [template, `${gate.name}'s child spell`, [...deps, "spell"]]
          : [medium, "this circle's medium (children inherit it)", ["circle", "wards"]];
    if (allowed.includes(child)) return;
    out.push({
      message: `${from}: children get the ${child} medium, which ${list} refuses; a child whose proposal names no allowed medium will be refused`,
      position: locate(at),
    });
  });
  return out;
}

/** The circle's own lists, intersected (the wards compose so at run time too). */
function allowlistOf(spell: Spell): string[] | undefined {
  let allowed: string[] | undefined;
  for (const ward of spell.circle?.wards ?? []) {
    const list = ward.child_medium_allowlist;
    if (!Array.isArray(list)) continue;
    const names = list.map(normalizeMediumName);
    allowed = allowed === undefined ? names : allowed.filter((m) => names.includes(m));
  }
  return allowed;
}
