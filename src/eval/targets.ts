/**
 * The spell × LLM pairs of an eval, each loaded once: the spell's own LLM (or the matrix's
 * `provider/model`, keeping the spell's endpoint and key when the provider is the same), built
 * without retries of its own — the run's EvalLLM waits out a 429 for every cast — and the run's
 * loom and redactor, so every cast records into one loom with every secret redacted.
 */
import { basename, dirname } from "node:path";
import type { Cantrip } from "../core/cantrip.js";
import type { LLM } from "../core/contract.js";
import type { Redactor } from "../core/redact.js";
import { createLLM, parseLLMShorthand, type LLMSpec } from "../llm/registry.js";
import type { Loom } from "../loom/core/index.js";
import { loadDocument } from "../spell/index.js";
import { llmSpecOf } from "../spell/llm-spec.js";
import { childLLMBuilder } from "./child-llms.js";
import { EvalLLM } from "./llm.js";
import type { Scheduler } from "./scheduler.js";

/** A spell × LLM pair as a report names it; a queued run needs no more (its workers load it). */
export interface TargetInfo {
  /** The spell's file (absolute, as the plan names it) and its name. */
  file: string;
  spell: string;
  llm: string;
  provider: string;
  /** The matrix's `provider/model` as asked (undefined: the spell's own LLM). */
  label: string | undefined;
}

export interface Target extends TargetInfo {
  cantrip: Cantrip<Loom>;
}

export interface TargetOptions {
  env: NodeJS.ProcessEnv;
  loom: Loom;
  redactor: Redactor;
  scheduler: Scheduler;
  /** Replaying: no provider is built (offline). */
  replay: boolean;
  /** How `oci://` references resolve (EvalRunOptions.resolveRemote). */
  remote?: ((ref: string) => Promise<string>) | undefined;
}

function specFor(own: LLMSpec | undefined, label: string | undefined): LLMSpec {
  if (!label) return own ?? { provider: "scripted" };
  const asked = parseLLMShorthand(label);
  return own?.provider === asked.provider ? { ...own, ...asked } : asked;
}

async function specOf(file: string, label: string | undefined, env: NodeJS.ProcessEnv) {
  const checked = await loadDocument(file, { env, validateOnly: true });
  const spec = specFor(llmSpecOf(checked.document["llm"]), label);
  return { spec, name: label ?? `${spec.provider}/${spec.model ?? "default"}` };
}

/** What a report says of a spell × LLM, without building its LLM or cantrip. */
export async function describeTarget(
  file: string,
  label: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TargetInfo> {
  const { spec, name } = await specOf(file, label, env);
  return { file, spell: basename(file), llm: name, provider: spec.provider, label };
}

export async function loadTarget(
  file: string,
  label: string | undefined,
  o: TargetOptions,
): Promise<Target> {
  const { spec, name } = await specOf(file, label, o.env);
  const inner = o.replay ? undefined : await buildLLM(spec, file, o);
  const llm = new EvalLLM(inner, o.scheduler.gate(spec.provider), name);
  const loaded = await loadDocument(file, {
    env: o.env,
    llm,
    buildLLM: childLLMBuilder(o.scheduler, o.replay),
    loom: o.loom,
    redactor: o.redactor,
    ...(o.remote ? { remote: o.remote } : {}),
  });
  const cantrip = loaded.value as Cantrip<Loom>;
  return { file, spell: basename(file), llm: name, provider: spec.provider, label, cantrip };
}

const buildLLM = (spec: LLMSpec, file: string, o: TargetOptions): Promise<LLM> =>
  createLLM(
    { ...spec, retry: { ...spec.retry, maxRetries: 0 } },
    { redactor: o.redactor, env: o.env, baseDir: dirname(file) },
  );

/**
 * A judge's LLM, in any form a spell's `llm` takes (`provider/model`, or a block: a scripted one
 * judges offline), one per form, through the same scheduler.
 */
export function judges(o: TargetOptions): (llm: unknown) => Promise<LLM> {
  const built = new Map<string, Promise<LLM>>();
  return (given) => {
    const key = typeof given === "string" ? given : JSON.stringify(given);
    let llm = built.get(key);
    if (!llm) {
      const spec = llmSpecOf(given, "judge.llm") ?? { provider: "scripted" };
      const name =
        typeof given === "string" ? given : `${spec.provider}/${spec.model ?? "default"}`;
      llm = (o.replay ? Promise.resolve(undefined) : buildLLM(spec, ".", o)).then(
        (inner) => new EvalLLM(inner, o.scheduler.gate(spec.provider), name),
      );
      built.set(key, llm);
    }
    return llm;
  };
}
