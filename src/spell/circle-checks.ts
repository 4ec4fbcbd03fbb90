/**
 * The circle's rules that the schema cannot say, checked on the document as written — valid or
 * not — so that a schema error never hides them (every error at once): a `done` gate
 * (CIRCLE-1, and with require_done_tool), a truncation ward (CIRCLE-2), and the dependencies of
 * each registry gate. The same messages as the runtime's own checks (Circle, createGates).
 */
import { DELEGATION_GATES } from "../circle/gate-names.js";
import { gateRegistry, offerDelegationMessage, type GateRegistry } from "../circle/gates/index.js";
import { ConfigError } from "../core/errors.js";
import { hasTerminationWard } from "../core/wards.js";
import type { Path } from "./source.js";
import type { Locate } from "./validate.js";
import { ownEntry } from "../core/own.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A `done` gate and a truncation ward. */
export function circleShapeErrors(doc: unknown, locate: Locate): ConfigError[] {
  const circle = isObj(doc) ? doc["circle"] : undefined;
  if (!isObj(circle)) return [];
  const gates = Array.isArray(circle["gates"]) ? (circle["gates"] as unknown[]) : [];
  const wards = (Array.isArray(circle["wards"]) ? (circle["wards"] as unknown[]) : []).filter(
    isObj,
  );
  const at = (key: string): Path => (key in circle ? ["circle", key] : ["circle"]);
  const out: ConfigError[] = [];
  if (!gates.some((g) => gateName(g) === "done")) {
    const requireDone = wards.some((w) => w["require_done_tool"] === true);
    out.push(
      new ConfigError(
        "missing_done_gate",
        requireDone
          ? "cantrip with require_done must have a done gate (circle must have a done gate)"
          : "circle must have a done gate",
        locate(at("gates")),
      ),
    );
  }
  const keys = Object.fromEntries(wards.flatMap((w) => Object.keys(w)).map((k) => [k, true]));
  if (!hasTerminationWard(keys)) {
    out.push(
      new ConfigError(
        "missing_truncation_ward",
        "cantrip must have at least one truncation ward (max_turns or timeout_ms)",
        locate(at("wards")),
      ),
    );
  }
  return out;
}

/**
 * Dependencies a registry gate does not take (`{ read: { rooot: x } }`), and the gates
 * call_entity offers children (COMP-1), which the schema does not see into: their names too.
 */
export function gateDependencyErrors(
  doc: unknown,
  locate: Locate,
  registry: GateRegistry = gateRegistry,
): ConfigError[] {
  const circle = isObj(doc) ? doc["circle"] : undefined;
  const gates = isObj(circle) && Array.isArray(circle["gates"]) ? circle["gates"] : [];
  const out: ConfigError[] = [];
  gates.forEach((g: unknown, i: number) => {
    const path = ["circle", "gates", i];
    out.push(...itemErrors(g, path, registry, locate, false));
    const name = gateName(g);
    const deps = isObj(g) && name !== undefined ? depsOf(g, name) : undefined;
    if (!DELEGATION_GATES.includes(name ?? "") || !isObj(deps) || !Array.isArray(deps["gates"]))
      return;
    const at = [
      ...path,
      typeof g === "object" && g && "name" in g ? "dependencies" : name!,
      "gates",
    ];
    deps["gates"].forEach((o: unknown, j: number) =>
      out.push(...itemErrors(o, [...at, j], registry, locate, true)),
    );
  });
  return out;
}

const depsOf = (g: Obj, name: string): unknown =>
  typeof g["name"] === "string" ? g["dependencies"] : g[name];

/** One gate item's errors; an offered one's name is checked here too (the schema does not). */
function itemErrors(
  g: unknown,
  path: Path,
  registry: GateRegistry,
  locate: Locate,
  offered: boolean,
): ConfigError[] {
  const name = gateName(g);
  const entry = name === undefined ? undefined : ownEntry(registry, name);
  const declared = isObj(g) && g["behavior"] !== undefined;
  if (offered && name !== undefined && DELEGATION_GATES.includes(name))
    return [new ConfigError("bad_dependency", offerDelegationMessage(name), locate(path))];
  if (offered && name !== undefined && !entry && !declared)
    return [new ConfigError("unknown_gate", `unknown gate ${JSON.stringify(name)}`, locate(path))];
  if (!entry || !isObj(g) || declared) return [];
  const deps = depsOf(g, name!);
  return (isObj(deps) ? Object.keys(deps) : [])
    .filter((key) => !entry.dependencies.includes(key))
    .map(
      (key) =>
        new ConfigError(
          "unknown_dependency",
          `gate ${name} takes no dependency ${JSON.stringify(key)}` +
            (entry.dependencies.length ? ` (it takes: ${entry.dependencies.join(", ")})` : ""),
          locate(path),
        ),
    );
}

function gateName(g: unknown): string | undefined {
  if (typeof g === "string") return g;
  if (!isObj(g)) return undefined;
  if (typeof g["name"] === "string") return g["name"];
  const keys = Object.keys(g);
  return keys.length === 1 ? keys[0] : undefined;
}
