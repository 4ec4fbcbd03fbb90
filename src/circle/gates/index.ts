import { ConfigError } from "../../core/errors.js";
import type { Gate } from "../gate.js";
import { a2aConfigOf, a2aGate, A2A_DEPENDENCIES } from "./a2a.js";
import { callEntityBatchGate, callEntityGate } from "./call-entity.js";
import {
  CALL_ENTITY_DEPENDENCIES,
  spawnConfigOf,
  type CallEntityFactoryContext,
} from "./call-entity-config.js";
import type { GateLookup } from "../spawn/index.js";
import { doneGate } from "./done.js";
import { echoGate } from "./echo.js";
import { browserGates, browserSettingsOf, BROWSER_DEPENDENCIES } from "./browser.js";
import { fetchGateOf, FETCH_DEPENDENCIES } from "./fetch-config.js";
import { listDirGate } from "./list-dir.js";
import { mcpConfigOf, mcpGates, MCP_DEPENDENCIES } from "./mcp.js";
import { readGate } from "./read.js";
import { searchGate } from "./search.js";
import { writeGate } from "./write.js";
import { ownEntry } from "../../core/own.js";

export { doneGate } from "./done.js";
export { echoGate } from "./echo.js";
export { readGate } from "./read.js";
export { listDirGate } from "./list-dir.js";
export { searchGate } from "./search.js";
export { writeGate } from "./write.js";
export { fetchGate, type FetchOptions } from "./fetch.js";
export { mcpGates, mcpConfigOf, mcpGateName } from "./mcp.js";
export { browserGates, browserSettingsOf, BROWSER_GATES } from "./browser.js";
export type { McpServerConfig } from "./mcp-server.js";
export { behaviorGate, type DeclaredGate, type GateBehavior } from "./behavior.js";
export { callEntityGate, callEntityBatchGate } from "./call-entity.js";
export { offerDelegationMessage } from "./call-entity-config.js";

export interface GateFactoryContext extends CallEntityFactoryContext {
  /** Relative paths in dependencies resolve against this folder (the spell's). */
  baseDir: string;
  /** The gates this circle's spell may name (children may ask for the free ones); default the built-ins. */
  registry?: GateRegistry;
}

export interface GateEntry {
  /** Dependency keys the gate accepts at construction (CIRCLE-10). */
  dependencies: readonly string[];
  /** Built with no dependencies it reaches nothing (fetch: an empty allowlist), so a child may name it. */
  closedUnconfigured?: true;
  /** The gate; or several, when one item declares a family of them (an MCP server's tools). */
  create(deps: Readonly<Record<string, unknown>>, ctx: GateFactoryContext): Gate | readonly Gate[];
}

const rootOf = (deps: Readonly<Record<string, unknown>>, ctx: GateFactoryContext): string => {
  const root = deps["root"] ?? ".";
  if (typeof root !== "string") throw new ConfigError("bad_dependency", "root must be a path");
  return root.startsWith("/") ? root : `${ctx.baseDir}/${root}`;
};

/** A registry of gate factories by name. */
export type GateRegistry = Readonly<Record<string, GateEntry>>;

/**
 * Built-in gates by name, built here in one place. The schema's enum of gate names is these
 * keys plus the test gates of the conformance runner (a test checks both directions).
 */
export const gateRegistry: GateRegistry = {
  done: { dependencies: [], create: () => doneGate() },
  echo: { dependencies: [], create: () => echoGate() },
  read: { dependencies: ["root"], create: (d, c) => readGate({ root: rootOf(d, c) }) },
  read_ephemeral: {
    dependencies: ["root"],
    create: (d, c) => readGate({ root: rootOf(d, c), name: "read_ephemeral", ephemeral: true }),
  },
  list_dir: { dependencies: ["root"], create: (d, c) => listDirGate({ root: rootOf(d, c) }) },
  search: { dependencies: ["root"], create: (d, c) => searchGate({ root: rootOf(d, c) }) },
  write: {
    dependencies: ["root", "writable", "max_bytes"],
    create: (d, c) =>
      writeGate({
        root: rootOf(d, c),
        writable: d["writable"] === true,
        ...(typeof d["max_bytes"] === "number" ? { maxBytes: d["max_bytes"] } : {}),
      }),
  },
  fetch: {
    dependencies: FETCH_DEPENDENCIES,
    closedUnconfigured: true,
    create: (d) => fetchGateOf(d),
  },
  mcp: {
    dependencies: MCP_DEPENDENCIES,
    create: (d, c) => mcpGates(mcpConfigOf(d, c.baseDir), { redactor: c.redactor }),
  },
  browser: {
    dependencies: BROWSER_DEPENDENCIES,
    create: (d) => browserGates(browserSettingsOf(d)),
  },
  a2a: {
    dependencies: A2A_DEPENDENCIES,
    create: (d, c) => a2aGate(a2aConfigOf(d), c.redactor),
  },
  call_entity: {
    dependencies: CALL_ENTITY_DEPENDENCIES,
    create: (d, c) => callEntityGate(spawnConfigOf(d, c, lookup(c))),
  },
  call_entity_batch: {
    dependencies: CALL_ENTITY_DEPENDENCIES,
    create: (d, c) => callEntityBatchGate(spawnConfigOf(d, c, lookup(c))),
  },
};

const isFree = (e: GateEntry | undefined): boolean =>
  e !== undefined && (e.dependencies.length === 0 || e.closedUnconfigured === true);

/** The registry a circle was built from, as a child's proposal may use it (COMP-1). */
function lookup(ctx: GateFactoryContext): GateLookup {
  const registry = ctx.registry ?? gateRegistry;
  const entry = (name: string) => ownEntry(registry, name);
  return {
    // A gate that takes no dependencies, or is closed without them, reaches nothing the parent
    // could not give.
    free: (name) => (isFree(entry(name)) ? [entry(name)!.create({}, ctx)].flat()[0] : undefined),
    isFree: (name) => isFree(entry(name)),
    dependencies: (name) => entry(name)?.dependencies,
    names: () => Object.keys(registry),
  };
}

/** The gates one item of `circle.gates` declares: one, or a family (an MCP server's tools). */
export function createGates(
  name: string,
  deps: Readonly<Record<string, unknown>>,
  ctx: GateFactoryContext,
  registry: GateRegistry = gateRegistry,
): Gate[] {
  const entry = ownEntry(registry, name);
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
  return [entry.create(deps, ctx)].flat();
}
