/**
 * Delta detection (brief §2.4): did the positions change materially since the prior loop? A
 * strategy is pluggable; `llm_judge` (the default) asks a model, `heuristic` measures text.
 */
import type { LLM, Message } from "../core/contract.js";
import type { CouncilCalls } from "./calls.js";
import { formatPositions } from "./seats.js";
import type { SeatResponses } from "./types.js";

export interface DeltaStrategy {
  /** True when the positions changed materially; `prior` null (loop 1) is always a change. */
  detect(
    prior: SeatResponses | null,
    current: SeatResponses,
    at: { loop: number; calls: CouncilCalls },
  ): Promise<boolean>;
}

export const JUDGE_SYSTEM = "You are a judge. Answer only YES or NO.";
export const JUDGE_REMINDER = "Answer with exactly one word: YES or NO.";

export function judgeQuestion(prior: SeatResponses, current: SeatResponses): string {
  return `Did positions materially change?\n\nPRIOR:\n${formatPositions(prior)}\n\nCURRENT:\n${formatPositions(current)}\n\nAnswer YES if substantive changes occurred. Answer NO if changes are only cosmetic.`;
}

/**
 * The judge's verdict: the reply's first word, stripped of markup (** _ ` # > and quotes) and
 * trailing punctuation, in any case — "**NO**", "No, nothing material changed.", "Yes." all
 * count. A reply whose first word is neither YES nor NO ("NOT YES", "Mostly yes", "") is no
 * answer (null): a reply is never searched for a YES inside it.
 */
export function parseVerdict(reply: string): boolean | null {
  const first = reply
    .replace(/^[\s*_`#>"'\u201C\u201D\u2018\u2019]+/u, "") // curly quotes, escaped: the bundles stay ASCII
    .match(/^[\p{L}]+/u)?.[0]
    ?.toUpperCase();
  return first === "YES" ? true : first === "NO" ? false : null;
}

/**
 * LLM-as-judge. A reply that is not YES or NO is asked again (`retries` times, default 1) with
 * the reply and a reminder added to the conversation; after that the positions count as
 * changed (the council deliberates on rather than stopping on a guess) and a warning says so
 * — a judge's wording never fails a run whose seats were already paid for.
 */
export class LlmJudgeDelta implements DeltaStrategy {
  constructor(
    private readonly llm: LLM,
    private readonly retries = 1,
  ) {}

  async detect(
    prior: SeatResponses | null,
    current: SeatResponses,
    at: { loop: number; calls: CouncilCalls },
  ): Promise<boolean> {
    if (prior === null) return true;
    const messages: Message[] = [
      { role: "system", content: JUDGE_SYSTEM },
      { role: "user", content: judgeQuestion(prior, current) },
    ];
    for (let attempt = 0; ; attempt++) {
      const reply = await at.calls.ask({
        llm: this.llm,
        messages: [...messages],
        site: { phase: "judge", loop: at.loop, ...(attempt ? { step: `retry ${attempt}` } : {}) },
      });
      const verdict = parseVerdict(reply);
      if (verdict !== null) return verdict;
      if (attempt >= this.retries) {
        at.calls.emit({
          type: "warning",
          message: `the delta judge (${this.llm.name}) answered neither YES nor NO in loop ${at.loop}${this.retries ? ` (asked ${this.retries + 1} times)` : ""}; counted as a change`,
          reply,
        });
        return true;
      }
      messages.push(
        { role: "assistant", content: reply },
        { role: "user", content: JUDGE_REMINDER },
      );
    }
  }
}

/**
 * Offline: a seat's position changed when the text distance between its prior and current
 * text (1 − the Dice coefficient of their word bigrams, 0 same … 1 nothing shared) exceeds
 * `threshold` (default 0.2). Any seat changing, or a seat appearing, is a delta.
 */
export class HeuristicDelta implements DeltaStrategy {
  constructor(readonly threshold = 0.2) {}

  detect(prior: SeatResponses | null, current: SeatResponses): Promise<boolean> {
    if (prior === null) return Promise.resolve(true);
    for (const [key, text] of Object.entries(current)) {
      const before = prior[key];
      if (before === undefined || textDistance(before, text) > this.threshold)
        return Promise.resolve(true);
    }
    return Promise.resolve(false);
  }
}

/** 1 − Dice(word bigrams of a, word bigrams of b); words are lower-cased runs of letters/digits. */
export function textDistance(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  if (x.size === 0 && y.size === 0) return 0;
  let shared = 0;
  let total = 0;
  for (const [gram, n] of x) {
    shared += Math.min(n, y.get(gram) ?? 0);
    total += n;
  }
  for (const n of y.values()) total += n;
  return 1 - (2 * shared) / total;
}

function bigrams(text: string): Map<string, number> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out = new Map<string, number>();
  // A one-word text is its own "bigram", so short answers still compare.
  const grams = words.length === 1 ? words : words.slice(1).map((w, i) => `${words[i]} ${w}`);
  for (const g of grams) out.set(g, (out.get(g) ?? 0) + 1);
  return out;
}
