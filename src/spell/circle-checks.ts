/**
 * The circle's rules that the schema cannot say, checked on the document as written — valid or
 * not — so that a schema error never hides them (every error at once): a `done` gate
 * (CIRCLE-1, and with require_done_tool), a truncation ward (CIRCLE-2), and the dependencies of
 * each registry gate. The same messages as the runtime's own checks (Circle, createGate).
 */
import { gateRegistry, type GateRegistry } from "../circle/gates/index.js";
import { ConfigError } from "../core/errors.js";
import { hasTerminationWard } from "../core/wards.js";
import type { Path } from "./source.js";
import type { Locate } from "./validate.js";

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

/** Dependencies a registry gate does not take (`{ read: { rooot: x } }`). */
export function gateDependencyErrors(
  doc: unknown,
  locate: Locate,
  registry: GateRegistry = gateRegistry,
): ConfigError[] {
  const circle = isObj(doc) ? doc["circle"] : undefined;
  const gates = isObj(circle) && Array.isArray(circle["gates"]) ? circle["gates"] : [];
  const out: ConfigError[] = [];
  gates.forEach((g: unknown, i: number) => {
    const name = gateName(g);
    const entry = name === undefined ? undefined : registry[name];
    if (!entry || !isObj(g) || g["behavior"] !== undefined) return;
    const deps = typeof g["name"] === "string" ? g["dependencies"] : g[name!];
    for (const key of isObj(deps) ? Object.keys(deps) : []) {
      if (entry.dependencies.includes(key)) continue;
      out.push(
        new ConfigError(
          "unknown_dependency",
          `gate ${name} takes no dependency ${JSON.stringify(key)}` +
            (entry.dependencies.length ? ` (it takes: ${entry.dependencies.join(", ")})` : ""),
          locate(["circle", "gates", i]),
        ),
      );
    }
  });
  return out;
}

function gateName(g: unknown): string | undefined {
  if (typeof g === "string") return g;
  if (!isObj(g)) return undefined;
  if (typeof g["name"] === "string") return g["name"];
  const keys = Object.keys(g);
  return keys.length === 1 ? keys[0] : undefined;
}
