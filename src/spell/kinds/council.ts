/**
 * The `council` kind (seed 004, Crucible): a deliberation council declared in YAML. The
 * snake_case document becomes an EngineConfig once, here; the engine is src/council's.
 */
import type { EngineConfig } from "../../council/engine.js";
import { Crucible } from "../crucible.js";
import { ConfigError, type SpellbookError } from "../../core/errors.js";
import type { CouncilDocument, TestCase } from "../../generated/council.js";
import { Loom } from "../../loom/core/index.js";
import { openLoomStore } from "../loom-store.js";
import type { LoadOptions } from "../options.js";
import { buildCouncilLLMs, councilProviderErrors } from "./council-llms.js";
import { councilValidator } from "./council-messages.js";
import type { DocumentKind, KindContext } from "./kind.js";

export type CouncilTestCase = TestCase;

/** A loaded council: its engine, and what the CLI and `spell test` need around it. */
export interface CouncilProgram {
  engine: Crucible;
  /** The configuration the engine was built from. */
  config: EngineConfig;
  /** An engine like this one with some settings changed (the interactive `trace on/off`). */
  withConfig(change: Partial<EngineConfig>): Crucible;
  loom: Loom;
  intent: string | undefined;
  tests: CouncilTestCase[];
}

interface Resolved {
  config: EngineConfig;
  intent: string | undefined;
  tests: CouncilTestCase[];
}

export const councilKind: DocumentKind<CouncilDocument, Resolved, CouncilProgram> = {
  name: "council",
  validator: councilValidator,
  async resolve(doc, ctx) {
    const options = ctx.options as LoadOptions;
    const errors: SpellbookError[] = [];
    const config: EngineConfig = {
      name: doc.name ?? ctx.file,
      observability: doc.observability ?? false,
      deltaStrategy: doc.delta?.strategy ?? "llm_judge",
      ...(doc.delta?.threshold !== undefined ? { heuristicThreshold: doc.delta.threshold } : {}),
      ...(doc.delta?.judge_retries !== undefined ? { judgeRetries: doc.delta.judge_retries } : {}),
      ...(doc.triage?.output ? { triage: { ...doc.triage.output } } : {}),
    };
    const resolved = { config, intent: doc.intent, tests: doc.tests ?? [] };
    if (options.validateOnly) return { resolved, errors: councilProviderErrors(doc, ctx) };
    const { llms, modelFor } = await buildCouncilLLMs(doc, ctx, errors);
    config.llms = llms;
    config.modelFor = modelFor;
    try {
      config.loom = openLoom(doc, ctx);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      errors.push(new ConfigError(err.code, err.message, ctx.locate(["loom"])));
    }
    return { resolved, errors };
  },
  compile({ config, intent, tests }, ctx) {
    if ((ctx.options as LoadOptions).validateOnly) return Promise.resolve({ errors: [] });
    const program: CouncilProgram = {
      engine: new Crucible(config),
      config,
      withConfig: (change) => new Crucible({ ...config, ...change }),
      loom: config.loom ?? new Loom(),
      intent,
      tests,
    };
    return Promise.resolve({ value: program, errors: [] });
  },
};

/** The loom of a run: --loom, else the document's loom.path (relative to it), else the CLI default. */
function openLoom(doc: CouncilDocument, ctx: KindContext): Loom {
  const options = ctx.options as LoadOptions;
  const fromDoc = options.loomPath === undefined && doc.loom?.path !== undefined;
  const path = options.loomPath ?? doc.loom?.path ?? options.defaultLoomPath;
  if (!path) return new Loom();
  const base = fromDoc ? ctx.baseDir : process.cwd();
  const store = openLoomStore(path, base, ctx.redactor, ctx.env);
  for (const w of store.warnings ?? [])
    ctx.warnings.push({ message: w, position: ctx.locate(["loom"]) });
  return new Loom(store);
}
