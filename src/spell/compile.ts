import { resolve } from "node:path";
import type { Circle } from "../circle/circle.js";
import type { Gate } from "../circle/gate.js";
import {
  behaviorGate,
  createGates,
  gateRegistry,
  offerDelegationMessage,
  type GateRegistry,
  type GateBehavior,
} from "../circle/gates/index.js";
import { DELEGATION_GATES, type ChildLLMSource } from "../circle/spawn/index.js";
import { Cantrip } from "../core/cantrip.js";
import { ConfigError, type SpellbookError } from "../core/errors.js";
import { circleShapeErrors } from "./circle-checks.js";
import { circleOf } from "./approvals.js";
import { childMediumWarnings } from "./child-medium-check.js";
import { createIdentity, type IdentityInput } from "../core/identity.js";
import type { Redactor } from "../core/redact.js";
import { composeWards, numberWard, type Ward } from "../core/wards.js";
import type { Identity as IdentitySpec, Spell } from "../generated/spell.js";
import type { LLM } from "../core/contract.js";
import { createLLM, providerRegistry, type BuildLLM, type LLMSpec } from "../llm/registry.js";
import { llmSpecOf } from "./llm-spec.js";
import { compileFolding } from "./folding.js";
import { Loom } from "../loom/core/index.js";
import { openLoomStore } from "./loom-store.js";
import { ErrorList } from "./collect.js";
import type { Path } from "./source.js";
import { bashCircleMedium } from "./compile-bash.js";
import { resolveMedium, withState } from "./compile-medium.js";
import { typedOutput } from "./output-schema.js";
import { dependenciesPath, type ResolvedSpell, type GateSpec } from "./resolve.js";
import { mcpTrustWarnings } from "./mcp-trust.js";
import type { Warning } from "./rewrite.js";
import { didYouMean } from "./suggest.js";
import type { Locate } from "./validate.js";
import { ownEntry } from "../core/own.js";

export interface CompileContext {
  file: string;
  baseDir: string;
  locate: Locate;
  env: NodeJS.ProcessEnv;
  redactor: Redactor;
  warnings: Warning[];
  /** Use this LLM instead of building the spell's (tests). */
  llm?: LLM | undefined;
  /** Build this `llm:` block instead of the spell's (`spell run --llm`); the spell's `retry` is kept. */
  llmSpec?: LLMSpec | undefined;
  /** Builds the LLMs the spell and its call_entity gates build; default createLLM. */
  buildLLM?: BuildLLM | undefined;
  /** Where provider warnings go; default process.emitWarning. */
  warn?: ((message: string) => void) | undefined;
  /** Check the spell completely but build no LLM client (spell validate); needs `llm` as a stand-in. */
  validateOnly?: boolean | undefined;
  /** Where the loom goes instead of the spell's `loom.path`; "memory" for none. */
  loomPath?: string | undefined;
  defaultLoomPath?: string | undefined;
  /** An existing loom to record into (casts of one conformance case share it). */
  loom?: Loom | undefined;
  /** The gates the spell may name; default the built-ins (the conformance runner adds its test gates). */
  gates?: GateRegistry | undefined;
  /** LLMs offered to children of call_entity, ahead of the spell's own (the conformance runner's child_llm). */
  childLLMs?: ChildLLMSource | undefined;
}

export function compileIdentity(
  spec: IdentitySpec | null | undefined,
): IdentityInput | null | undefined {
  if (spec === null || spec === undefined) return spec;
  const { system_prompt, tool_choice, extra, ...hyper } = spec;
  return {
    systemPrompt: system_prompt ?? null,
    hyperparameters: { ...hyper, ...(extra ?? {}) },
    ...(tool_choice ? { toolChoice: tool_choice } : {}),
  };
}

/** The spell's identity, printing through its redaction (PROD-8); null/undefined as given. */
function identityOf(spec: IdentitySpec | null | undefined, ctx: CompileContext) {
  const input = compileIdentity(spec);
  if (input === null || input === undefined) return input;
  return createIdentity(input, { redact: (text) => ctx.redactor.redact(text) });
}

function compileGate(spec: GateSpec, ctx: CompileContext): Gate[] {
  const registry = ctx.gates ?? gateRegistry;
  const factoryCtx = {
    baseDir: ctx.baseDir,
    env: ctx.env,
    redactor: ctx.redactor,
    childLLMs: ctx.childLLMs,
    buildLLM: ctx.buildLLM,
    registry,
  };
  const { name, deps, declared } = spec;
  const behavior = declared?.["behavior"] as GateBehavior | undefined;
  if (declared && behavior) {
    const gate = behaviorGate({
      name,
      behavior,
      ...(typeof declared["description"] === "string"
        ? { description: declared["description"] }
        : {}),
      ...(declared["parameters"]
        ? { parameters: declared["parameters"] as Gate["parameters"] }
        : {}),
      ...(typeof declared["ephemeral"] === "boolean" ? { ephemeral: declared["ephemeral"] } : {}),
    });
    return [gate];
  }
  if (declared && !ownEntry(registry, name)) {
    throw new ConfigError(
      "unknown_gate",
      `unknown gate ${JSON.stringify(name)}${didYouMean(name, Object.keys(registry))} (a gate of your own needs a behavior)`,
    );
  }
  const gates = createGates(name, deps, factoryCtx, registry);
  return declared?.["ephemeral"] === true ? gates.map(ephemeral) : gates;
}

/** The gate, its result ephemeral (PROD-5); description and parameters read through (they may be learnt later). */
function ephemeral(gate: Gate): Gate {
  return Object.create(gate, { ephemeral: { value: true } }) as Gate;
}

export function compileCircle(
  resolved: ResolvedSpell,
  ctx: CompileContext,
  errors: ErrorList,
): Circle | undefined {
  const spec = resolved.spell.circle;
  if (!spec) return undefined;
  const declared = errors.guard(["circle", "medium"], () =>
    resolveMedium(spec, ctx.warnings, ctx.locate),
  );
  const bash =
    declared &&
    errors.guard(["circle", "sandbox"], () =>
      bashCircleMedium(declared, spec, resolved.root, ctx.warnings, ctx.locate),
    );
  const medium =
    bash && resolved.state !== undefined
      ? errors.guard(["circle", "state"], () => withState(bash, resolved.state!))
      : bash;
  const gates: Gate[] = [];
  resolved.gates.forEach((item, i) => {
    const at = ["circle", "gates", i];
    const made =
      item && errors.guard(at, () => compileGate(withOfferedGates(item, ctx, errors, at), ctx));
    if (made) gates.push(...made);
  });
  // The circle's rules are checked whatever else failed: every error at once.
  for (const e of circleShapeErrors(resolved.spell, ctx.locate)) errors.list.push(e);
  if (!medium || errors.list.length) return undefined;
  ctx.warnings.push(
    ...childMediumWarnings(resolved.spell, resolved.gates, medium.name, ctx.locate),
    ...mcpTrustWarnings(resolved.gates, ctx.locate),
  );
  const typed = typedOutput(resolved.spell.output_schema, gates, (spec.wards ?? []) as Ward[]);
  const wards = typed.wards;
  // COMP-6: at max_depth 0 the delegation gates are warded off — not in the circle at all.
  const depth = errors.guard(["circle", "wards"], () =>
    numberWard(composeWards(wards), "max_depth"),
  );
  const kept =
    depth === 0 ? typed.gates.filter((g) => !DELEGATION_GATES.includes(g.name)) : typed.gates;
  return errors.guard(["circle"], () => circleOf(spec, errors, { medium, gates: kept, wards }));
}

/** The gates call_entity offers children (COMP-1), built like the circle's own, each error at its item. */
function withOfferedGates(spec: GateSpec, ctx: CompileContext, errors: ErrorList, path: Path) {
  const offered = spec.deps["gates"];
  if (!DELEGATION_GATES.includes(spec.name) || !Array.isArray(offered)) return spec;
  const at = [...dependenciesPath(spec, path), "gates"];
  const gates = (offered as (GateSpec | undefined)[]).map(
    (item, j) =>
      item &&
      errors.guard([...at, j], () => {
        if (DELEGATION_GATES.includes(item.name))
          throw new ConfigError("bad_dependency", offerDelegationMessage(item.name));
        return compileGate(item, ctx);
      }),
  );
  return { ...spec, deps: { ...spec.deps, gates: gates.flatMap((g) => g ?? []) } };
}

function openLoom(spell: Spell, ctx: CompileContext): Loom {
  if (ctx.loom) return ctx.loom;
  // A path given on the command line is relative to the working directory; the spell's own
  // loom.path is relative to the spell (never the current directory).
  const fromSpell = ctx.loomPath === undefined && spell.loom?.path !== undefined;
  const path = ctx.loomPath ?? spell.loom?.url ?? spell.loom?.path ?? ctx.defaultLoomPath;
  // It prints through the spell's redaction (PROD-8): its identity records hold the prompt.
  const printing = { redact: (text: string) => ctx.redactor.redact(text) };
  if (!path) return new Loom(undefined, printing);
  // Refused before the first query, not at the first turn: the file is not a loom we may write.
  const base = fromSpell ? ctx.baseDir : process.cwd();
  const store = openLoomStore(path, base, ctx.redactor, ctx.env);
  const loom = new Loom(store, printing);
  for (const w of store.warnings ?? [])
    ctx.warnings.push({ message: w, position: ctx.locate(["loom"]) });
  return loom;
}

/**
 * A validated spell value → a Cantrip, through the registries. Every error of the spell is
 * collected and positioned; none stops the others from being found.
 */
export async function compileSpell(
  resolved: ResolvedSpell,
  ctx: CompileContext,
  errors: ErrorList = new ErrorList(ctx.locate),
): Promise<{ cantrip?: Cantrip<Loom>; errors: SpellbookError[] }> {
  const { spell } = resolved;
  const own = llmSpecOf(spell.llm);
  const spec = ctx.llmSpec ? { ...(own?.retry ? { retry: own.retry } : {}), ...ctx.llmSpec } : own;
  if (spec && (!ctx.llm || ctx.validateOnly) && !ownEntry(providerRegistry, spec.provider)) {
    errors.add(
      new ConfigError(
        "unknown_provider",
        `unknown llm provider ${JSON.stringify(spec.provider)}${didYouMean(spec.provider, Object.keys(providerRegistry)) || `; known: ${Object.keys(providerRegistry).join(", ")}`}`,
      ),
      ["llm"],
    );
  }
  const circle = compileCircle(resolved, ctx, errors);
  if (errors.list.length) return { errors: errors.list };
  const llm =
    ctx.llm ??
    (spec
      ? await errors.guardAsync(["llm"], () =>
          (ctx.buildLLM ?? createLLM)(spec, {
            redactor: ctx.redactor,
            env: ctx.env,
            baseDir: ctx.baseDir,
            ...(ctx.warn ? { warn: ctx.warn } : {}),
          }),
        )
      : undefined);
  if (errors.list.length) return { errors: errors.list };
  const view = await errors.guardAsync(["folding"], () =>
    compileFolding(spell.folding, {
      llm,
      spec,
      provider: { redactor: ctx.redactor, env: ctx.env, baseDir: ctx.baseDir },
      validateOnly: ctx.validateOnly,
    }),
  );
  if (errors.list.length) return { errors: errors.list };
  const loom = errors.guard(["loom"], () => openLoom(spell, ctx));
  if (!loom) return { errors: errors.list };
  const cantrip = errors.guard(
    [],
    () =>
      new Cantrip({
        llm,
        identity: identityOf(spell.identity, ctx),
        circle,
        loom,
        ...(view ? { view } : {}),
        ...(spell.name ? { name: spell.name } : {}),
        source: resolve(ctx.file),
        redact: (text) => ctx.redactor.redact(text),
      }),
  );
  // A loom that could not be opened is an error, never a silent fall-back to memory.
  return cantrip && errors.list.length === 0 ? { cantrip, errors: [] } : { errors: errors.list };
}
