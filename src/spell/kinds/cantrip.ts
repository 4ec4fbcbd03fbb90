/** The `cantrip` kind: llm + identity + circle (+ loom, intent, tests) → a Cantrip. */
import { Circle } from "../../circle/circle.js";
import type { ChildLLMSource, ChildTemplate } from "../../circle/spawn/index.js";
import type { Cantrip } from "../../core/cantrip.js";
import type { LLM } from "../../core/contract.js";
import { ConfigError, SpellErrors, errorMessage, type SpellbookError } from "../../core/errors.js";
import validateSpell from "../../generated/spell-validate.js";
import type { Spell } from "../../generated/spell.js";
import type { Loom } from "../../loom/core/index.js";
import { ErrorList } from "../collect.js";
import { circleShapeErrors, gateDependencyErrors } from "../circle-checks.js";
import { compileSpell, type CompileContext } from "../compile.js";
import type { LoadOptions } from "../options.js";
import { resolveSpell, type ResolvedSpell } from "../resolve.js";
import { lethalTrifectaWarning } from "../trifecta/check.js";
import type { DocumentKind, KindContext } from "./kind.js";

export const cantripKind: DocumentKind<Spell, ResolvedSpell, Cantrip<Loom> | undefined> = {
  name: "cantrip",
  validator: validateSpell,
  check: (doc, locate) => [...circleShapeErrors(doc, locate), ...gateDependencyErrors(doc, locate)],
  async resolve(spell, ctx) {
    const errors = new ErrorList(ctx.locate);
    const resolved = await resolveSpell(spell, {
      baseDir: ctx.baseDir,
      rootDir: (ctx.options as LoadOptions).rootDir,
      errors,
      loadChild: (file) => childTemplate(file, ctx, nestedOptions(ctx)),
    });
    return errors.list.length ? { errors: errors.list } : { resolved, errors: [] };
  },
  async compile(resolved, ctx: KindContext) {
    const options = ctx.options as LoadOptions;
    const { cantrip, errors } = await compileSpell(resolved, {
      file: ctx.file,
      baseDir: ctx.baseDir,
      locate: ctx.locate,
      env: ctx.env,
      redactor: ctx.redactor,
      warnings: ctx.warnings,
      llm: options.everyLLM ?? options.llm ?? (options.validateOnly ? validationLLM : undefined),
      ...(options.everyLLM ? { childLLMs: everySource(options.everyLLM) } : {}),
      llmSpec: options.llmSpec,
      buildLLM: options.buildLLM,
      warn: options.onWarning,
      validateOnly: options.validateOnly,
      loomPath: options.validateOnly ? "memory" : options.loomPath,
      defaultLoomPath: options.defaultLoomPath,
      loom: options.validateOnly ? undefined : options.loom,
    });
    // §4.8: said once per load — by spell validate and at the start of spell run.
    const trifecta = lethalTrifectaWarning(resolved.spell, ctx);
    if (trifecta) ctx.warnings.push(trifecta);
    return { value: options.validateOnly ? undefined : cantrip, errors };
  },
};

/**
 * A cantrip document held as a value, not a file (the conformance runner's setups): resolve and
 * compile, as a file's load would, child spells loaded through `loadNested`.
 */
export async function buildCantrip(
  spell: Spell,
  ctx: CompileContext,
  loadNested: KindContext["loadNested"],
): Promise<{ cantrip?: Cantrip<Loom>; errors: SpellbookError[] }> {
  const errors = new ErrorList(ctx.locate);
  const resolved = await resolveSpell(spell, {
    baseDir: ctx.baseDir,
    errors,
    loadChild: (file) => childTemplate(file, { loadNested }),
  });
  if (errors.list.length) return { errors: errors.list };
  return compileSpell(resolved, ctx);
}

/** A child spell of call_entity, loaded at load time: its errors are the parent's, at its line. */
async function childTemplate(
  file: string,
  ctx: Pick<KindContext, "loadNested">,
  passed: LoadOptions = {},
): Promise<ChildTemplate> {
  let loaded: { kind: string; value: unknown };
  try {
    loaded = await ctx.loadNested(file, passed);
  } catch (err) {
    const detail =
      err instanceof SpellErrors
        ? err.errors.map((e) => e.format()).join("\n  ")
        : errorMessage(err);
    throw new ConfigError(
      "child_spell_invalid",
      `call_entity: child spell ${file} is invalid:\n  ${detail}`,
    );
  }
  if (loaded.kind !== "cantrip")
    throw new ConfigError(
      "child_spell_invalid",
      `call_entity: ${file} is a kind: ${loaded.kind} document, not a cantrip`,
    );
  const cantrip = loaded.value as Cantrip<Loom> | undefined;
  if (!cantrip) return {}; // validated only: nothing runs
  const { circle } = cantrip;
  return {
    llm: cantrip.llm,
    identity: cantrip.identity,
    ...(circle instanceof Circle ? { circle } : {}),
  };
}

/** What a child spell's load takes from its parent's: the one LLM of a replay, the LLM builder. */
function nestedOptions(ctx: KindContext): LoadOptions {
  const { everyLLM, buildLLM } = ctx.options as LoadOptions;
  return { ...(everyLLM ? { everyLLM } : {}), ...(buildLLM ? { buildLLM } : {}) };
}

/** Children get the one LLM whatever they ask for (by name or by depth). */
const everySource = (llm: LLM): ChildLLMSource => ({
  pick: () => Promise.resolve({ llm }),
  names: () => [],
});

/** Stands in for the LLM when a spell is only validated; it is never queried. */
const validationLLM: LLM = {
  name: "validation-only",
  query: () =>
    Promise.reject(new ConfigError("validate_only", "this spell was loaded for validation only")),
};
