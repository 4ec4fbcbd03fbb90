/**
 * A cast's assertions, checked: the conformance runner's checks for its vocabulary (one
 * vocabulary, `checkFor`), and the eval's own — `judge`, `max_cost_usd`, `max_latency_ms`,
 * `javascript` (in the QuickJS sandbox). A failed cast (a provider error) is an errored case and
 * is not asserted on; an assertion that cannot be decided (a malformed judgement, an
 * expression that throws, a cost not known) errors the case too, apart from failures.
 */
import type { LLM, Usage } from "../core/contract.js";
import { errorMessage } from "../core/errors.js";
import type { CastResult } from "../core/result.js";
import type { Loom } from "../loom/core/index.js";
import type { Turn } from "../loom/records/index.js";
import type { Outcome } from "../conformance/act.js";
import type { Built } from "../conformance/build.js";
import { checkFor } from "../conformance/check.js";
import type { EvalCase } from "../spell/kinds/index.js";
import { judge } from "./judge.js";
import { evaluateInSandbox } from "./sandbox.js";

export type CaseStatus = "pass" | "fail" | "error";

export interface Verdict {
  status: CaseStatus;
  /** Assertions that held, over all of them (1 when there are none and the cast ended). */
  score: number;
  reason: string;
  /** Each judge query's usage, with its cost when known (judge.ts). */
  judgeUsage: (Usage & { costUsd?: number })[];
}

export interface AssessContext {
  latencyMs: number;
  /** The judge LLM for a `judge.llm` (`provider/model` or a spell's long form). */
  judgeLLM(llm: unknown): Promise<LLM>;
}

/** What a conformance check reads, limited to this cast: its own thread is its loom. */
function castView(cast: CastResult<Loom>): { outcome: Outcome; built: Built; thread: Turn[] } {
  const thread = cast.lastTurnId ? cast.loom.thread(cast.lastTurnId) : [];
  const loom = {
    turns: () => thread,
    thread: (id: string) => cast.loom.thread(id),
    leaves: () => thread.slice(-1),
    identity: (id: string) => cast.loom.identity(id),
    folds: () => [],
  } as unknown as Loom;
  const outcome: Outcome = { casts: [cast], events: [], logs: [], llmKeys: [] };
  const built = { loom, llms: new Map() } as unknown as Built;
  return { outcome, built, thread };
}

export async function assess(
  cast: CastResult<Loom>,
  c: EvalCase,
  ctx: AssessContext,
): Promise<Verdict> {
  const judgeUsage: Verdict["judgeUsage"] = [];
  if (cast.status === "failed")
    return { status: "error", score: 0, reason: cast.error.message, judgeUsage };
  const { outcome, built, thread } = castView(cast);
  const failures: string[] = [];
  const errors: string[] = [];
  for (const assertion of c.expect) {
    const [key, want] = Object.entries(assertion)[0]!;
    try {
      const r = await own(key, want, cast, c, thread, ctx, judgeUsage);
      const message =
        r === undefined
          ? checkFor(key)!(want, outcome, built, {
              turnIds: thread.map((t) => t.id),
              bindings: new Map(),
            })
          : r;
      if (message && message.startsWith("error: ")) errors.push(message.slice(7));
      else if (message) failures.push(message);
    } catch (err) {
      errors.push(`${key}: ${errorMessage(err)}`);
    }
  }
  const total = c.expect.length;
  const held = total - failures.length - errors.length;
  const score = total ? held / total : 1;
  if (errors.length) return { status: "error", score, reason: errors.join("; "), judgeUsage };
  if (failures.length) return { status: "fail", score, reason: failures.join("; "), judgeUsage };
  return { status: "pass", score, reason: `${total} assertion(s) held`, judgeUsage };
}

/**
 * The eval's own assertions; undefined for a conformance key. A message starting "error: "
 * is an assertion that could not be decided.
 */
async function own(
  key: string,
  want: unknown,
  cast: CastResult<Loom>,
  c: EvalCase,
  thread: Turn[],
  ctx: AssessContext,
  judgeUsage: Verdict["judgeUsage"],
): Promise<string | null | undefined> {
  if (key === "max_latency_ms")
    return ctx.latencyMs <= Number(want)
      ? null
      : `max_latency_ms: expected at most ${Number(want)}, took ${Math.round(ctx.latencyMs)}`;
  if (key === "max_cost_usd") {
    const cost = costOf(cast);
    if (cost === undefined) return "error: max_cost_usd: cost unknown";
    return cost <= Number(want)
      ? null
      : `max_cost_usd: expected at most ${Number(want)}, cost ${cost}`;
  }
  if (key === "javascript") {
    const vars = {
      result: cast.result ?? null,
      turns: thread,
      cast: { status: cast.status, reason: cast.reason, turns: cast.turns, usage: cast.usage },
    };
    const out = await evaluateInSandbox(String(want), vars);
    if (out.error) return `error: javascript: ${out.error}`;
    return out.value
      ? null
      : `javascript: ${String(want)} is ${JSON.stringify(out.value) ?? "undefined"}`;
  }
  if (key === "judge") {
    const { llm, rubric } = want as { llm: unknown; rubric: string };
    const j = await judge(await ctx.judgeLLM(llm), rubric, c.intent, cast.result);
    if (j.usage) judgeUsage.push(j.usage);
    if (j.error) return `error: judge: ${j.error}`;
    return j.pass ? null : `judge: ${j.reason}`;
  }
  return undefined;
}

/** `result.usage.costUsd`, when the cost is known (another part of issue 23 fills it). */
export function costOf(cast: CastResult<unknown>): number | undefined {
  const cost = (cast.usage as { costUsd?: unknown }).costUsd;
  return typeof cost === "number" ? cost : undefined;
}
