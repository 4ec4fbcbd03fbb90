/**
 * One cast of an eval and its row: cast inside its scope (its recording, its replay), assessed
 * inside its judge's scope, its score and reason put into the loom as a reward on its last turn.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LLM, LLMResponse } from "../core/contract.js";
import { castPlaces, castScopeFor } from "../core/cast-places.js";
import { errorMessage } from "../core/errors.js";
import { addCost } from "../core/spend.js";
import type { CastResult } from "../core/result.js";
import { ReplayLLM } from "../llm/providers/replay.js";
import type { Loom } from "../loom/core/index.js";
import type { EvalCase } from "../spell/kinds/index.js";
import { assess, costOf, type Verdict } from "./assert.js";
import { castScope, type CastScope } from "./llm.js";
import type { CastObserver } from "./observe.js";
import type { ResultRow } from "./summary.js";
import type { Target, TargetInfo } from "./targets.js";

export interface CastJob {
  target: Target;
  c: EvalCase;
  k: number;
  /** Which cast of the run this is (a scripted model's replies follow from it: cast-places.ts). */
  seat?: number | undefined;
  /**
   * The entity the cast records as (a queued cast's, assigned before it was queued): cast with
   * `resumeEntity`, so a worker that takes the job over continues it.
   */
  entityId?: string | undefined;
  cast: CastScope;
  judged: CastScope;
  loom: Loom;
  judgeLLM: (llm: unknown) => Promise<LLM>;
  /** Who watches this cast (`spell eval --otel`), if anyone. */
  observer?: CastObserver | undefined;
}

/** A cast's row, and what its judges spent (tokens; USD, undefined when a price is unknown). */
export interface CastOutcome {
  row: ResultRow;
  judgeTokens: number;
  judgeCost: number | undefined;
}

export async function castOne(j: CastJob): Promise<CastOutcome> {
  const { target, k, loom } = j;
  // The case's intent for this spell: its vars through the spell's inputs: (eval-intents.ts).
  const c = { ...j.c, intent: j.c.intents?.[target.file] ?? j.c.intent };
  const started = performance.now();
  let result: CastResult<Loom> | undefined;
  let verdict: Verdict;
  try {
    const onEvent = j.observer?.onEvent;
    // A named entity (a queued cast's) continues from its last recorded turn, if it has one.
    const options = {
      ...(onEvent ? { onEvent } : {}),
      ...(j.entityId !== undefined ? { resumeEntity: j.entityId } : {}),
      ...(j.seat !== undefined ? { seat: j.seat } : {}),
    };
    result = await castScope.run(j.cast, () => target.cantrip.cast(c.intent, options));
    const cast = result;
    const latencyMs = performance.now() - started;
    // A scripted judge answers this cast by its seat too, whoever judged before it.
    verdict = await castScope.run(j.judged, () =>
      castPlaces.run(castScopeFor(j.seat ?? 0), () =>
        assess(cast, c, { latencyMs, judgeLLM: watchedJudge(j) }),
      ),
    );
  } catch (err) {
    verdict = { status: "error", score: 0, reason: errorMessage(err), judgeUsage: [] };
  }
  const latency = performance.now() - started;
  if (result?.lastTurnId) loom.annotateReward(result.lastTurnId, verdict.score, verdict.reason);
  const row = rowOf(target, c, k, result, verdict, latency);
  const judgeTokens = verdict.judgeUsage.reduce(
    (n, u) => n + u.promptTokens + u.completionTokens,
    0,
  );
  const judgeCost = verdict.judgeUsage.reduce<number | undefined>(
    (usd, u) => addCost(usd, u.costUsd),
    0,
  );
  j.observer?.end(row);
  return { row, judgeTokens, judgeCost };
}

/** The row of a cast that never ran where it was sent (a queued job that failed on its worker). */
export function erroredOutcome(target: TargetInfo, c: EvalCase, k: number, reason: string) {
  const verdict: Verdict = { status: "error", score: 0, reason, judgeUsage: [] };
  return { row: rowOf(target, c, k, undefined, verdict, 0), judgeTokens: 0, judgeCost: 0 };
}

function rowOf(
  target: TargetInfo,
  c: EvalCase,
  k: number,
  result: CastResult<Loom> | undefined,
  verdict: Verdict,
  latency: number,
): ResultRow {
  return {
    spell: target.spell,
    llm: target.llm,
    case: c.id,
    repeat: k,
    status: verdict.status,
    score: verdict.score,
    reason: verdict.reason,
    cast_status: result?.status ?? "failed",
    cast_reason: result?.reason ?? "failed",
    turns: result?.turns ?? 0,
    tokens: result?.usage.totalTokens ?? 0,
    cost_usd: result ? (costOf(result) ?? null) : null,
    latency_ms: Math.round(latency),
    entity_id: result?.entityId ?? null,
    last_turn_id: result?.lastTurnId ?? null,
    location: c.location,
  };
}

const watchedJudge = ({ judgeLLM, observer }: CastJob): CastJob["judgeLLM"] =>
  observer ? async (name) => observer.judge(await judgeLLM(name)) : judgeLLM;

/** A recorded run's replies by cast key (spell|llm|case|repeat, `|judge` for its judge). */
export function readReplies(dir: string): Map<string, LLMResponse[]> {
  const map = new Map<string, LLMResponse[]>();
  const text = readFileSync(join(dir, "replies.jsonl"), "utf8");
  for (const line of text.split("\n"))
    if (line.trim()) {
      const { key, replies } = JSON.parse(line) as { key: string; replies: LLMResponse[] };
      map.set(key, replies);
    }
  return map;
}

/** The cast's own recording, served once: taken out of the map so nothing else can reuse it. */
export function replayOf(recorded: Map<string, LLMResponse[]>, key: string): ReplayLLM | undefined {
  const replies = recorded.get(key);
  if (!replies) return undefined;
  recorded.delete(key);
  return new ReplayLLM(replies, key);
}
