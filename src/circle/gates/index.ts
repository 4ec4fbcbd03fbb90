import { ConfigError } from "../../core/errors.js";
import type { Gate } from "../gate.js";
import { behaviorGate } from "./behavior.js";
import { callEntityBatchGate, callEntityGate } from "./call-entity.js";
import {
  CALL_ENTITY_DEPENDENCIES,
  spawnConfigOf,
  type CallEntityFactoryContext,
} from "./call-entity-config.js";
import { doneGate } from "./done.js";
import { echoGate } from "./echo.js";
import { listDirGate } from "./list-dir.js";
import { readGate } from "./read.js";

export { doneGate, DONE } from "./done.js";
export { echoGate } from "./echo.js";
export { readGate } from "./read.js";
export { listDirGate } from "./list-dir.js";
export { behaviorGate, type DeclaredGate, type GateBehavior } from "./behavior.js";
export { callEntityGate, callEntityBatchGate } from "./call-entity.js";

export interface GateFactoryContext extends CallEntityFactoryContext {
  /** Relative paths in dependencies resolve against this folder (the spell's). */
  baseDir: string;
}

export interface GateEntry {
  /** Dependency keys the gate accepts at construction (CIRCLE-10). */
  dependencies: readonly string[];
  create(deps: Readonly<Record<string, unknown>>, ctx: GateFactoryContext): Gate;
}

const rootOf = (deps: Readonly<Record<string, unknown>>, ctx: GateFactoryContext): string => {
  const root = deps["root"] ?? ".";
  if (typeof root !== "string") throw new ConfigError("bad_dependency", "root must be a path");
  return root.startsWith("/") ? root : `${ctx.baseDir}/${root}`;
};

/** Built-in gates by name. The schema's enum of gate names must match these keys. */
export const gateRegistry: Record<string, GateEntry> = {
  done: { dependencies: [], create: () => doneGate() },
  echo: { dependencies: [], create: () => echoGate() },
  read: { dependencies: ["root"], create: (d, c) => readGate({ root: rootOf(d, c) }) },
  read_ephemeral: {
    dependencies: ["root"],
    create: (d, c) => readGate({ root: rootOf(d, c), name: "read_ephemeral", ephemeral: true }),
  },
  list_dir: { dependencies: ["root"], create: (d, c) => listDirGate({ root: rootOf(d, c) }) },
  slow_gate: {
    dependencies: ["delay_ms", "result"],
    create: (d) =>
      behaviorGate({
        name: "slow_gate",
        description: "Waits, then returns its result (a stand-in for a slow service).",
        behavior: { delay_ms: numberDep(d, "delay_ms", 100), result: d["result"] ?? "slow result" },
      }),
  },
  failing_gate: {
    dependencies: ["error"],
    create: (d) =>
      behaviorGate({
        name: "failing_gate",
        description: "Always fails (for error-as-observation checks).",
        behavior: { error: typeof d["error"] === "string" ? d["error"] : "gate failed" },
      }),
  },
  call_entity: {
    dependencies: CALL_ENTITY_DEPENDENCIES,
    create: (d, c) => callEntityGate(spawnConfigOf(d, c, (name) => freeGate(name, c))),
  },
  call_entity_batch: {
    dependencies: CALL_ENTITY_DEPENDENCIES,
    create: (d, c) => callEntityBatchGate(spawnConfigOf(d, c, (name) => freeGate(name, c))),
  },
  counter: {
    dependencies: [],
    create: () =>
      behaviorGate({
        name: "counter",
        description: "Returns how many times it has been called.",
        behavior: { stateful: true },
      }),
  },
};

/** A child may ask for a built-in that takes no dependencies: it reaches nothing the parent could not give. */
function freeGate(name: string, ctx: GateFactoryContext): Gate | undefined {
  const entry = gateRegistry[name];
  return entry && entry.dependencies.length === 0 ? entry.create({}, ctx) : undefined;
}

function numberDep(deps: Readonly<Record<string, unknown>>, key: string, fallback: number): number {
  const v = deps[key];
  return typeof v === "number" ? v : fallback;
}

export function createGate(
  name: string,
  deps: Readonly<Record<string, unknown>>,
  ctx: GateFactoryContext,
): Gate {
  const entry = gateRegistry[name];
  if (!entry) throw new ConfigError("unknown_gate", `unknown gate ${JSON.stringify(name)}`);
  for (const key of Object.keys(deps)) {
    if (!entry.dependencies.includes(key)) {
      throw new ConfigError(
        "unknown_dependency",
        `gate ${name} takes no dependency ${JSON.stringify(key)}` +
          (entry.dependencies.length ? ` (it takes: ${entry.dependencies.join(", ")})` : ""),
      );
    }
  }
  return entry.create(deps, ctx);
}

/** Registers a gate factory (mediums and composition add theirs). */
export function registerGate(name: string, entry: GateEntry): void {
  gateRegistry[name] = entry;
}
