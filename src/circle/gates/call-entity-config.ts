import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { ConfigError } from "../../core/errors.js";
import { Redactor } from "../../core/redact.js";
import type { LLM } from "../../llm/contract.js";
import { createLLM, parseLLMShorthand, type LLMSpec } from "../../llm/registry.js";
import type { Gate } from "../gate.js";
import {
  combineSources,
  type ChildLLMSource,
  type ChildTemplate,
  type SpawnConfig,
} from "../spawn/index.js";

/** Dependencies of call_entity and call_entity_batch in a spell (CIRCLE-10). */
export const CALL_ENTITY_DEPENDENCIES = ["llm", "llms", "spell", "medium"] as const;

export interface CallEntityFactoryContext {
  baseDir: string;
  env?: NodeJS.ProcessEnv | undefined;
  redactor?: Redactor | undefined;
  /** LLMs the caller of the loader offers to children (the conformance runner's child_llm, ...). */
  childLLMs?: ChildLLMSource | undefined;
}

/**
 * `call_entity: { llm: …, llms: { name: … }, spell: ./child.yaml, medium: code }` → the spawn
 * configuration. LLMs and the child spell are built when a child first needs them.
 */
export function spawnConfigOf(
  deps: Readonly<Record<string, unknown>>,
  ctx: CallEntityFactoryContext,
  freeGate: (name: string) => Gate | undefined,
): SpawnConfig {
  const config: SpawnConfig = {
    freeGate,
    llms: combineSources(ctx.childLLMs, dependencySource(deps, ctx)),
  };
  const medium = deps["medium"];
  if (medium !== undefined) {
    if (typeof medium !== "string")
      throw new ConfigError("bad_dependency", "call_entity: medium is a name (conversation, code)");
    config.medium = medium;
  }
  const spell = deps["spell"];
  if (spell !== undefined) {
    if (typeof spell !== "string")
      throw new ConfigError("bad_dependency", "call_entity: spell is a path to a spell file");
    const path = isAbsolute(spell) ? spell : resolve(ctx.baseDir, spell);
    if (!existsSync(path))
      throw new ConfigError(
        "child_spell_missing",
        `call_entity: child spell ${spell} does not exist`,
      );
    let loading: Promise<ChildTemplate> | undefined;
    config.template = () => (loading ??= loadTemplate(path, ctx));
  }
  return config;
}

async function loadTemplate(path: string, ctx: CallEntityFactoryContext): Promise<ChildTemplate> {
  const { loadSpell } = await import("../../spell/index.js"); // the loader compiles gates: load it lazily
  const loaded = await loadSpell(path, {
    loomPath: "memory",
    ...(ctx.env ? { env: ctx.env } : {}),
  });
  const cantrip = loaded.cantrip!;
  return { llm: cantrip.llm, identity: cantrip.identity, circle: cantrip.circle };
}

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
      llm = createLLM(spec, {
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
      const spec = named[name];
      return spec ? { llm: await build(`named:${name}`, spec) } : undefined;
    },
    names: () => Object.keys(named),
  };
}
