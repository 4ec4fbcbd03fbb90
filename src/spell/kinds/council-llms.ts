/**
 * The LLMs of a council document: the default `llm:` (OpenRouter's auto router when absent),
 * each role's own, and the named `models:` a seat's model hint may pick. Identical specs share
 * one LLM, so a scripted or replayed model serves its calls in the order they are made.
 */
import type { SpellbookError } from "../../core/errors.js";
import { ConfigError } from "../../core/errors.js";
import type { CouncilDocument } from "../../generated/council.js";
import type { LLM } from "../../core/contract.js";
import { llmSpecOf } from "../llm-spec.js";
import {
  createLLM,
  providerRegistry,
  type LLMSpec,
  type ProviderContext,
} from "../../llm/registry.js";
import { ownEntry } from "../../core/own.js";
import type { EngineConfig } from "../../council/engine.js";
import { DEFAULT_MODEL, fallbackList, TRIAGE_MODEL } from "../../council/defaults.js";
import type { Path } from "../source.js";
import type { KindContext } from "./kind.js";
import type { LoadOptions } from "../options.js";

type LlmField = CouncilDocument["llm"];

/** Without `llm:`: OpenRouter's auto router, with its fallback list (council/defaults.ts). */
export const DEFAULT_COUNCIL_LLM: LLMSpec = {
  provider: "openrouter",
  model: DEFAULT_MODEL,
  models: fallbackList(DEFAULT_MODEL),
};

const specOf = (value: LlmField): LLMSpec | undefined => llmSpecOf(value);

export interface CouncilLLMs {
  llms: NonNullable<EngineConfig["llms"]>;
  modelFor: (hint: string) => Promise<LLM>;
}

/** Builds every LLM the document names; problems are collected with their positions. */
export async function buildCouncilLLMs(
  doc: CouncilDocument,
  ctx: KindContext,
  errors: SpellbookError[],
): Promise<CouncilLLMs> {
  const options = ctx.options as LoadOptions;
  const provider: ProviderContext = {
    redactor: ctx.redactor,
    env: ctx.env,
    baseDir: ctx.baseDir,
    ...(options.onWarning ? { warn: options.onWarning } : {}),
  };
  const built = new Map<string, Promise<LLM>>();
  const create = (spec: LLMSpec): Promise<LLM> => {
    const key = JSON.stringify(spec);
    let llm = built.get(key);
    if (!llm) built.set(key, (llm = createLLM(spec, provider)));
    return llm;
  };
  // While the document loads, a bad spec is an error at its place in the file (said once).
  const said = new Set<string>();
  const build = (spec: LLMSpec, path: Path): Promise<LLM | undefined> =>
    create(spec).catch((err: unknown) => {
      if (!(err instanceof ConfigError)) throw err;
      const error = new ConfigError(err.code, err.message, ctx.locate(path));
      if (!said.has(error.format())) errors.push(error);
      said.add(error.format());
      return undefined;
    });
  // `--llm` replaces every LLM of the document (a scripted council run against a real service).
  const override = options.llmSpec;
  const defaultSpec = override ?? specOf(doc.llm) ?? DEFAULT_COUNCIL_LLM;
  const role = (value: LlmField, path: Path, fallback: LLMSpec) =>
    build(override ?? specOf(value) ?? fallback, path);
  const triageFallback =
    defaultSpec.provider === "openrouter"
      ? {
          ...defaultSpec,
          model: TRIAGE_MODEL,
          models: fallbackList(TRIAGE_MODEL, defaultSpec.model ?? DEFAULT_MODEL),
        }
      : defaultSpec;
  const llms: CouncilLLMs["llms"] = {};
  const put = (name: keyof CouncilLLMs["llms"], llm: LLM | undefined) => {
    if (llm && name !== "models") llms[name] = llm;
  };
  put("default", await build(defaultSpec, ["llm"]));
  if (!doc.triage?.output)
    put("triage", await role(doc.triage?.llm, ["triage", "llm"], triageFallback));
  put("redTeam", await role(doc.red_team?.llm, ["red_team", "llm"], defaultSpec));
  put("judge", await role(doc.judge?.llm, ["judge", "llm"], defaultSpec));
  put("synthesizer", await role(doc.synthesizer?.llm, ["synthesizer", "llm"], defaultSpec));
  const models: Record<string, LLM> = {};
  for (const [name, value] of Object.entries(doc.models ?? {})) {
    const llm = await build(override ?? specOf(value)!, ["models", name]);
    if (llm) models[name] = llm;
  }
  llms.models = models;
  return { llms, modelFor: (hint) => hintLLM(hint, defaultSpec, llms.default, create) };
}

/**
 * `spell validate` builds no LLM: each one the document names is checked for a known provider
 * here instead (a shorthand's `constructor/x` passes the schema's pattern), at its place.
 */
export function councilProviderErrors(doc: CouncilDocument, ctx: KindContext): SpellbookError[] {
  const fields: [unknown, Path][] = [
    [doc.llm, ["llm"]],
    [doc.triage?.llm, ["triage", "llm"]],
    [doc.red_team?.llm, ["red_team", "llm"]],
    [doc.judge?.llm, ["judge", "llm"]],
    [doc.synthesizer?.llm, ["synthesizer", "llm"]],
    ...Object.entries(doc.models ?? {}).map(([name, v]): [unknown, Path] => [v, ["models", name]]),
  ];
  const errors: SpellbookError[] = [];
  for (const [value, path] of fields) {
    const provider = typeof value === "string" ? llmSpecOf(value)?.provider : undefined;
    if (provider === undefined || ownEntry(providerRegistry, provider)) continue;
    const known = Object.keys(providerRegistry).join(", ");
    const message = `unknown llm provider ${JSON.stringify(provider)}; known: ${known}`;
    errors.push(new ConfigError("unknown_provider", message, ctx.locate(path)));
  }
  return errors;
}

/**
 * A hint that names no model of the document: on OpenRouter, that model with the default as
 * its fallback (OpenRouter's `models` array); on other real providers, that model; on the
 * offline providers (scripted, replay), the default LLM — a hint is a hint, never an error.
 */
function hintLLM(
  hint: string,
  defaultSpec: LLMSpec,
  fallback: LLM | undefined,
  create: (spec: LLMSpec) => Promise<LLM>,
): Promise<LLM> {
  if (defaultSpec.provider === "scripted" || defaultSpec.provider === "replay") {
    if (fallback) return Promise.resolve(fallback);
    throw new ConfigError(
      "council_model_hint",
      `no LLM for the model hint ${JSON.stringify(hint)}`,
    );
  }
  return create(
    defaultSpec.provider === "openrouter"
      ? { ...defaultSpec, model: hint, models: [hint, defaultSpec.model ?? "openrouter/auto"] }
      : { ...defaultSpec, model: hint },
  );
}
