/**
 * `judge`: an LLM grades a cast's result against a rubric. The reply must be exactly one JSON
 * object `{"pass": boolean, "score": number 0..1 (optional), "reason": string}` — anything else
 * is a malformed judgement: the case is errored (reported apart), never guessed at. The judge's
 * usage counts in the run's tokens, and its cost in the run's cost.
 */
import type { LLM, Usage } from "../core/contract.js";
import { cutQuote } from "../core/cut-quote.js";
import { errorMessage } from "../core/errors.js";
import { renderIntent } from "../spell/inputs.js";

export interface Judgement {
  pass?: boolean;
  score?: number;
  reason: string;
  /** The reply could not be read, or the judge failed: an errored assertion. */
  error?: string;
  /** The judge's own usage, and its cost when its price is known (counted in the run's). */
  usage?: Usage & { costUsd?: number };
}

const INSTRUCTIONS = `You grade the answer of an AI agent against a rubric.
Reply with exactly one JSON object and nothing else:
{"pass": true or false, "score": a number from 0 to 1, "reason": "one sentence"}`;

export async function judge(
  llm: LLM,
  rubric: string,
  intent: string,
  result: unknown,
): Promise<Judgement> {
  const text = typeof result === "string" ? result : JSON.stringify(result);
  const question = renderIntent(rubric, { intent, result: text });
  let content: string | null;
  let usage: (Usage & { costUsd?: number }) | undefined;
  try {
    const reply = await llm.query([
      { role: "system", content: INSTRUCTIONS },
      { role: "user", content: `Rubric: ${question}\n\nTask: ${intent}\n\nAnswer: ${text}` },
    ]);
    content = reply.content;
    usage = reply.costUsd === undefined ? reply.usage : { ...reply.usage, costUsd: reply.costUsd };
  } catch (err) {
    return { reason: "", error: `judge failed: ${errorMessage(err)}` };
  }
  return { ...parseJudgement(content ?? ""), ...(usage ? { usage } : {}) };
}

/** Strict: one JSON object, `pass` a boolean, `score` (if given) in [0, 1], `reason` text. */
export function parseJudgement(content: string): Judgement {
  const bad = (why: string): Judgement => ({
    reason: "",
    error: `malformed judgement (${why}): ${JSON.stringify(cutQuote(content, 200))}`,
  });
  let value: unknown;
  try {
    value = JSON.parse(content.trim());
  } catch {
    return bad("not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return bad("not an object");
  const { pass, score, reason, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length) return bad(`unknown key ${Object.keys(rest)[0]}`);
  if (typeof pass !== "boolean") return bad("pass is not true or false");
  if (score !== undefined && (typeof score !== "number" || !(score >= 0 && score <= 1)))
    return bad("score is not a number from 0 to 1");
  if (typeof reason !== "string") return bad("reason is not text");
  return { pass, score: score ?? (pass ? 1 : 0), reason };
}
