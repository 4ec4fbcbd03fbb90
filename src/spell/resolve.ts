/**
 * The resolve stage of a cantrip: everything the spell names outside itself is loaded and
 * checked here, at load, with file:line:col — child spells of call_entity (loaded with the
 * parent's redactor), `$file` state, and the roots of file gates. Compile then builds from
 * resolved values only: no gate reads a spell, no medium reads a file.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { DELEGATION_GATES } from "../circle/gate-names.js";
import type { ChildTemplate } from "../circle/spawn/index.js";
import { ConfigError } from "../core/errors.js";
import type { Spell } from "../generated/spell.js";
import type { ErrorList } from "./collect.js";
import { llmSpecOf } from "./llm-spec.js";
import { loadCircleState } from "./resolve-state.js";
import type { Path } from "./source.js";

/** One gate as written, normalised: its name and its dependencies, resolved. */
export interface GateSpec {
  name: string;
  deps: Record<string, unknown>;
  /** The declared-gate object (`{ name, behavior, … }`) when the gate was written as one. */
  declared?: Record<string, unknown>;
}

export interface ResolvedSpell {
  spell: Spell;
  /** By position in `circle.gates`; undefined where the gate could not be resolved. */
  gates: (GateSpec | undefined)[];
  /** `circle.state` with every `$file` read. */
  state: Record<string, unknown> | undefined;
  /** `circle.root` (the bash medium's workspace), absolute; the spell's folder by default. */
  root: string;
}

export interface ResolveContext {
  baseDir: string;
  /** Where relative file-gate roots and `circle.root` resolve; default `baseDir`. */
  rootDir?: string | undefined;
  errors: ErrorList;
  /** Loads a child spell (the loader itself, handed in: resolve never imports it back). */
  loadChild(file: string): Promise<ChildTemplate>;
}

const ROOTED = new Set(["read", "read_ephemeral", "list_dir", "search", "write"]);

export async function resolveSpell(spell: Spell, ctx: ResolveContext): Promise<ResolvedSpell> {
  const gates: (GateSpec | undefined)[] = [];
  const items = spell.circle?.gates ?? [];
  for (let i = 0; i < items.length; i++) {
    const path = ["circle", "gates", i];
    gates.push(await ctx.errors.guardAsync(path, () => resolveGate(items[i], ctx, path)));
  }
  const spec = spell.circle?.state as Record<string, unknown> | undefined;
  const state =
    spec === undefined
      ? undefined
      : ctx.errors.guard(["circle", "state"], () => loadCircleState(spec, ctx.baseDir));
  const root =
    ctx.errors.guard(["circle", "root"], () =>
      workspaceRoot(spell.circle?.root, ctx.rootDir ?? ctx.baseDir),
    ) ?? ctx.baseDir;
  return { spell, gates, state, root };
}

function gateSpec(item: unknown): GateSpec {
  if (typeof item === "string") return { name: item, deps: {} };
  const obj = item as Record<string, unknown>;
  if (typeof obj["name"] === "string") {
    const deps = (obj["dependencies"] as Record<string, unknown> | undefined) ?? {};
    return { name: obj["name"], deps: { ...deps }, declared: obj };
  }
  const [name, deps] = Object.entries(obj)[0] ?? ["", {}];
  return { name, deps: { ...((deps as Record<string, unknown> | null) ?? {}) } };
}

async function resolveGate(item: unknown, ctx: ResolveContext, path: Path): Promise<GateSpec> {
  const gate = gateSpec(item);
  if (gate.name === "write" && gate.deps["writable"] !== true)
    throw new ConfigError(
      "root_not_writable",
      "write needs writable: true — like read's, its root is the spell's folder unless root: names another (write: { root: ./out, writable: true })",
    );
  if (ROOTED.has(gate.name))
    gate.deps["root"] = rootOf(gate.deps["root"], ctx.rootDir ?? ctx.baseDir);
  if (DELEGATION_GATES.includes(gate.name)) await resolveDelegation(gate, ctx, path);
  return gate;
}

/** Where a gate item's dependencies are written: `{ read: {…} }` or `{ name: read, dependencies: {…} }`. */
export const dependenciesPath = (gate: GateSpec, path: Path): Path => [
  ...path,
  gate.declared ? "dependencies" : gate.name,
];

/**
 * call_entity's dependencies: the child spell loaded, child LLMs converted, and the gates it
 * offers children resolved like the circle's own (roots against the spell), each error at its
 * own item (CIRCLE-10, COMP-1). An offered delegation gate is refused when compiled.
 */
async function resolveDelegation(gate: GateSpec, ctx: ResolveContext, path: Path): Promise<void> {
  const { spell, llm, llms, gates, ...rest } = gate.deps;
  const deps: Record<string, unknown> = { ...rest };
  if (gates !== undefined) {
    const at = [...dependenciesPath(gate, path), "gates"];
    if (!Array.isArray(gates))
      throw new ConfigError("bad_dependency", "call_entity: gates is a list, like circle.gates");
    const offered: (GateSpec | undefined)[] = [];
    for (let j = 0; j < gates.length; j++) {
      const item: unknown = gates[j];
      const spec = gateSpec(item);
      // call_entity offered to a child is refused at compile; its child spell is not loaded.
      offered.push(
        DELEGATION_GATES.includes(spec.name)
          ? spec
          : await ctx.errors.guardAsync([...at, j], () => resolveGate(item, ctx, [...at, j])),
      );
    }
    deps["gates"] = offered;
  }
  if (llm !== undefined) deps["llm"] = llmSpecOf(llm, "call_entity: llm");
  if (llms !== undefined) {
    if (llms === null || typeof llms !== "object" || Array.isArray(llms))
      throw new ConfigError(
        "bad_dependency",
        "call_entity: llms maps names to llms, e.g. { fast: openai/gpt-4.1-mini }",
      );
    deps["llms"] = Object.fromEntries(
      Object.entries(llms).map(([k, v]) => [k, llmSpecOf(v, `call_entity: llms.${k}`)]),
    );
  }
  if (spell !== undefined) deps["template"] = await childTemplate(spell, ctx);
  gate.deps = deps;
}

/**
 * A file gate's root, absolute: relative to the spell (or the root folder a protocol session
 * names), never the process's working directory.
 */
function rootOf(root: unknown, baseDir: string): string {
  const value = root ?? ".";
  if (typeof value !== "string") throw new ConfigError("bad_dependency", "root must be a path");
  return isAbsolute(value) ? value : resolve(baseDir, value);
}

/** The bash medium's workspace: relative to the spell, and it must be a folder that exists. */
function workspaceRoot(root: string | undefined, baseDir: string): string {
  const path = rootOf(root, baseDir);
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new ConfigError("root_missing", `circle.root ${JSON.stringify(root)} is not a folder`);
  return path;
}

async function childTemplate(spell: unknown, ctx: ResolveContext): Promise<ChildTemplate> {
  if (typeof spell !== "string")
    throw new ConfigError("bad_dependency", "call_entity: spell is a path to a spell file");
  // A registry reference is fetched by the loader (LoadOptions.remote), under the lock.
  if (spell.startsWith("oci://")) return ctx.loadChild(spell);
  const path = isAbsolute(spell) ? spell : resolve(ctx.baseDir, spell);
  if (!existsSync(path))
    throw new ConfigError(
      "child_spell_missing",
      `call_entity: child spell ${spell} does not exist`,
    );
  return ctx.loadChild(path);
}
