import { ConfigError } from "../../core/errors.js";
import { Redactor } from "../../core/redact.js";
import type { LLM } from "../../core/contract.js";
import { createLLM, parseLLMShorthand, type BuildLLM, type LLMSpec } from "../../llm/registry.js";
import type { Gate } from "../gate.js";
import { DELEGATION_GATES } from "../gate-names.js";
import {
  combineSources,
  type ChildLLMSource,
  type ChildTemplate,
  type GateLookup,
  type SpawnConfig,
} from "../spawn/index.js";

/**
 * Dependencies of call_entity and call_entity_batch (CIRCLE-10), as the loader hands them over:
 * a child spell is already loaded (`template`), never read from disk by the gate.
 */
export const CALL_ENTITY_DEPENDENCIES = ["llm", "llms", "medium", "template", "gates"] as const;

export interface CallEntityFactoryContext {
  baseDir: string;
  env?: NodeJS.ProcessEnv | undefined;
  redactor?: Redactor | undefined;
  /** LLMs the caller of the loader offers to children (the conformance runner's child_llm, ...). */
  childLLMs?: ChildLLMSource | undefined;
  /** How the `llm`/`llms` clients are built; default createLLM (`spell eval` wraps it). */
  buildLLM?: BuildLLM | undefined;
}

/**
 * `call_entity: { llm: …, llms: { name: … }, template, medium: code, gates: [...] }` → the spawn
 * configuration. LLM clients are built when a child first needs them; `gates` are built already
 * (the loader compiles them like the circle's own).
 */
export function spawnConfigOf(
  deps: Readonly<Record<string, unknown>>,
  ctx: CallEntityFactoryContext,
  registry: GateLookup,
): SpawnConfig {
  const config: SpawnConfig = {
    registry,
    llms: combineSources(ctx.childLLMs, dependencySource(deps, ctx)),
  };
  if (deps["gates"] !== undefined) config.offered = offeredGates(deps["gates"]);
  const medium = deps["medium"];
  if (medium !== undefined) {
    if (typeof medium !== "string")
      throw new ConfigError(
        "bad_dependency",
        "call_entity: medium is a name (conversation, code, bash)",
      );
    config.medium = medium;
  }
  const template = deps["template"];
  if (template !== undefined) config.template = template as ChildTemplate;
  return config;
}

export const offerDelegationMessage = (name: string): string =>
  `call_entity: gates cannot offer ${name}: a child may delegate while its max_depth allows`;

/** Gates offered to children (COMP-1): built gates, never delegation (a child gets that from max_depth). */
function offeredGates(value: unknown): Gate[] {
  const isGate = (g: unknown): g is Gate =>
    g !== null &&
    typeof g === "object" &&
    typeof (g as Gate).name === "string" &&
    typeof (g as Gate).execute === "function";
  if (!Array.isArray(value) || !value.every(isGate))
    throw new ConfigError(
      "bad_dependency",
      "call_entity: gates lists the gates a child may ask for, written like circle.gates",
    );
  const names = new Set<string>();
  for (const gate of value) {
    if (DELEGATION_GATES.includes(gate.name))
      throw new ConfigError("bad_dependency", offerDelegationMessage(gate.name));
    if (names.has(gate.name))
      throw new ConfigError("duplicate_gate", `call_entity: gates offers ${gate.name} twice`);
    names.add(gate.name);
  }
  return value;
}

/** An LLM dependency as written: `provider/model` or `{ provider, model, … }`. */
function specOf(value: unknown, what: string): LLMSpec {
  if (typeof value === "string") return parseLLMShorthand(value);
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { provider?: unknown }).provider === "string"
  )
    return { ...(value as LLMSpec) };
  throw new ConfigError(
    "bad_dependency",
    `call_entity: ${what} is provider/model or { provider, model, ... }`,
  );
}

function dependencySource(
  deps: Readonly<Record<string, unknown>>,
  ctx: CallEntityFactoryContext,
): ChildLLMSource | undefined {
  const fallback = deps["llm"] === undefined ? undefined : specOf(deps["llm"], "llm");
  const rawNamed = deps["llms"] ?? {};
  if (rawNamed === null || typeof rawNamed !== "object" || Array.isArray(rawNamed)) {
    throw new ConfigError(
      "bad_dependency",
      "call_entity: llms maps names to llms, e.g. { fast: openai/gpt-4.1-mini }",
    );
  }
  const named = Object.fromEntries(
    Object.entries(rawNamed).map(([k, v]) => [k, specOf(v, `llms.${k}`)]),
  );
  if (!fallback && Object.keys(named).length === 0) return undefined;
  const built = new Map<string, Promise<LLM>>();
  const build = (key: string, spec: LLMSpec): Promise<LLM> => {
    let llm = built.get(key);
    if (!llm) {
      llm = (ctx.buildLLM ?? createLLM)(spec, {
        redactor: ctx.redactor ?? new Redactor(),
        env: ctx.env ?? process.env,
        baseDir: ctx.baseDir,
      });
      built.set(key, llm);
    }
    return llm;
  };
  return {
    async pick(name) {
      if (name === undefined) return fallback ? { llm: await build("", fallback) } : undefined;
      const spec = Object.hasOwn(named, name) ? named[name] : undefined;
      return spec ? { llm: await build(`named:${name}`, spec) } : undefined;
    },
    names: () => Object.keys(named),
  };
}
