/**
 * The council engine (brief §3): `run(query)` → triage → executor → ExecutorResult.
 * Every call goes through our LLM layer; by default the engine builds OpenRouter models itself
 * (`createLLM`: retries, the `models` fallback array, normalized errors), or it is handed LLMs.
 */
import { ConfigError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import { Redactor } from "../core/redact.js";
import type { LLM } from "../core/contract.js";
import { createLLM } from "../llm/registry.js";
import type { Loom } from "../loom/core/index.js";
import { CouncilCalls } from "./calls.js";
import { DEFAULT_MODEL, fallbackList, TRIAGE_MODEL } from "./defaults.js";
import { HeuristicDelta, LlmJudgeDelta, type DeltaStrategy } from "./delta.js";
import { completedLoopsOf, type CompletedLoop, type CouncilEventListener } from "./events.js";
import { execute } from "./executor.js";
import { runTriage } from "./triage-agent.js";
import { toTriageOutput, type TriageCheck } from "./triage-output.js";
import type { ExecutorResult, TriageOutput } from "./types.js";
import { ownEntry } from "../core/own.js";

/** The engine's configuration; every field is optional and says its default. */
export interface EngineConfig {
  /** For the OpenRouter models the engine builds. Default: OPENROUTER_API_KEY. */
  openrouterApiKey?: string;
  /** Default: OPENROUTER_BASE_URL, else https://openrouter.ai/api/v1. */
  openrouterBaseUrl?: string;
  /** Default: anthropic/claude-sonnet-4 (the brief's model), falling back to openrouter/auto. */
  triageModel?: string;
  /**
   * Seats without a hint, red team, synthesis, short-circuit. Default: openrouter/auto. Every
   * model the engine builds is sent with a fallback list (defaults.ts): itself, then this one.
   */
  defaultModel?: string;
  /** The llm_judge's model. Default: openrouter/auto. */
  judgeModel?: string;
  /** Build and return the reasoning trace. Default false. */
  observability?: boolean;
  /** Default "llm_judge". */
  deltaStrategy?: "llm_judge" | "heuristic" | DeltaStrategy;
  /** heuristic: the text distance (0-1) above which a position changed. Default 0.2. */
  heuristicThreshold?: number;
  /** llm_judge: how often a reply that is not YES/NO is asked again. Default 1. */
  judgeRetries?: number;
  /** Ready LLMs (any provider of ours) instead of the OpenRouter models above; each defaults to `default`. */
  llms?: {
    default?: LLM;
    triage?: LLM;
    redTeam?: LLM;
    judge?: LLM;
    synthesizer?: LLM;
    /** By name: a seat whose model_hint is one of these names is served by it. */
    models?: Readonly<Record<string, LLM>>;
  };
  /** The LLM of a model hint not in `llms.models`. Default: OpenRouter with [hint, defaultModel]. */
  modelFor?: (modelId: string) => LLM | Promise<LLM>;
  /** A fixed TriageOutput (the JSON, snake_case): no triage call is made. */
  triage?: Readonly<Record<string, unknown>>;
  /** Where every call is recorded as a turn. Default: not recorded. */
  loom?: Loom;
  /** The council's name in the loom. */
  name?: string;
  /** Progress: each call's start, answer or failure, retries, warnings. Default: none. */
  onEvent?: CouncilEventListener;
}

/**
 * The council runtime. It has no triage rules of its own: `checkTriage` is given by the loader
 * (the schema's compiled validator, src/spell/triage-rules.ts); the public `Crucible`
 * (src/spell/crucible.ts) is this engine with it given.
 */
export class CouncilEngine {
  private readonly config: EngineConfig;
  private readonly fixedTriage: TriageOutput | undefined;
  private readonly cantripId = newId("council");
  private readonly hinted = new Map<string, Promise<LLM>>();
  private readonly built = new Map<string, Promise<LLM>>();

  constructor(
    config: EngineConfig,
    private readonly checkTriage: TriageCheck,
  ) {
    this.config = { ...config };
    if (config.triage) {
      const problems = checkTriage(config.triage);
      if (problems.length)
        throw new ConfigError(
          "triage_invalid",
          `the fixed triage output is invalid: ${problems.join("; ")}`,
        );
      this.fixedTriage = toTriageOutput({ ...config.triage });
    }
  }

  /** The loops a failed `run` completed before its error (empty when none did). */
  static completedLoops(err: unknown): readonly CompletedLoop[] {
    return completedLoopsOf(err);
  }

  /**
   * Processes a query through the council. `context` is metadata for triage only; `signal`
   * ends the query (its calls) early. A failed run's error carries the completed loops
   * (`CouncilEngine.completedLoops(err)`).
   */
  async run(
    query: string,
    context?: Readonly<Record<string, unknown>>,
    options: { signal?: AbortSignal } = {},
  ): Promise<ExecutorResult> {
    const { llms = {}, loom } = this.config;
    this.recordIdentity();
    const calls = new CouncilCalls(loom, this.cantripId, this.config.onEvent, options.signal);
    const triage =
      this.fixedTriage ??
      (await runTriage(await this.triageLLM(), calls, this.checkTriage, query, context));
    const seatLLMs = await Promise.all(
      triage.council.map((s) =>
        s.modelHint === null ? Promise.resolve(undefined) : this.modelFor(s.modelHint),
      ),
    );
    const defaultLLM = await this.defaultLLM();
    return execute(triage, query, calls, {
      defaultLLM,
      redTeamLLM: llms.redTeam ?? defaultLLM,
      synthesizerLLM: llms.synthesizer ?? defaultLLM,
      seatLLMs,
      delta: await this.delta(),
      observability: this.config.observability ?? false,
    });
  }

  private defaultLLM(): Promise<LLM> {
    const given = this.config.llms?.default;
    return given
      ? Promise.resolve(given)
      : this.openRouter(this.config.defaultModel ?? DEFAULT_MODEL);
  }

  private triageLLM(): Promise<LLM> {
    const { llms } = this.config;
    if (llms?.triage) return Promise.resolve(llms.triage);
    if (llms?.default) return Promise.resolve(llms.default);
    return this.openRouter(this.config.triageModel ?? TRIAGE_MODEL);
  }

  private async delta(): Promise<DeltaStrategy> {
    const strategy = this.config.deltaStrategy ?? "llm_judge";
    if (typeof strategy !== "string") return strategy;
    if (strategy === "heuristic") return new HeuristicDelta(this.config.heuristicThreshold);
    const { llms } = this.config;
    const judge =
      llms?.judge ??
      llms?.default ??
      (await this.openRouter(this.config.judgeModel ?? DEFAULT_MODEL));
    return new LlmJudgeDelta(judge, this.config.judgeRetries);
  }

  /** A seat's hint: a named LLM, the caller's resolver, the default LLM given, or OpenRouter. */
  private modelFor(hint: string): Promise<LLM> {
    const models = this.config.llms?.models;
    const named = models && ownEntry(models, hint);
    if (named) return Promise.resolve(named);
    let llm = this.hinted.get(hint);
    if (!llm) {
      const { modelFor, llms } = this.config;
      llm = modelFor
        ? Promise.resolve(modelFor(hint))
        : llms?.default
          ? Promise.resolve(llms.default)
          : this.openRouter(hint);
      this.hinted.set(hint, llm);
    }
    return llm;
  }

  /** An OpenRouter model through the provider registry (retries, fallbacks, errors), built once. */
  private openRouter(
    model: string,
    models = fallbackList(model, this.config.defaultModel ?? DEFAULT_MODEL),
  ): Promise<LLM> {
    const key = `${model} ${models.join(",")}`;
    let llm = this.built.get(key);
    if (!llm) {
      const { openrouterApiKey: apiKey, openrouterBaseUrl: baseUrl } = this.config;
      llm = createLLM(
        {
          provider: "openrouter",
          model,
          ...(apiKey ? { apiKey } : {}),
          ...(baseUrl ? { baseUrl } : {}),
          models,
        },
        { redactor: new Redactor(), env: process.env, baseDir: process.cwd() },
      );
      this.built.set(key, llm);
    }
    return llm;
  }

  private recordIdentity(): void {
    this.config.loom?.recordIdentity(
      this.cantripId,
      { kind: "council", name: this.config.name ?? "council" },
      [],
      "council",
    );
  }
}
