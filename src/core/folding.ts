/**
 * Folding (§6.8, LOOM-5/6, PROD-4) as a view: once the next query would pass `threshold` of the
 * context window, or once more than `triggerAfterTurns` turns are shown verbatim, the older turns
 * are replaced *in what the LLM is sent* by one summary message marked `[Folded: turns a-b]`.
 * The history, the sandbox and the loom keep everything; the fold itself is recorded in the loom.
 *
 * Never folded: the system messages and the first intent (everything before the first turn),
 * the current cast's intent, and the last `keepRecentTurns` turns. Folds cut at turn boundaries
 * (a turn starts with its assistant message), so every tool result still follows its tool call.
 */
import type { Message } from "./contract.js";
import { templateSummary, type FoldSummarizer } from "./fold-summary.js";
import type { ContextView, TurnMark, ViewContext } from "./view.js";

/** PROD-4: the documented default share of the context window that triggers a fold. */
export const DEFAULT_FOLD_THRESHOLD = 0.8;
/** The window assumed when neither the spell's `folding` nor its `llm` gives one. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_KEEP_RECENT_TURNS = 2;
/** Tokens are estimated as characters / 4 for what the last query's usage does not cover. */
const CHARS_PER_TOKEN = 4;

export interface FoldingOptions {
  /** Share of the context window (0–1]; default 0.8. */
  threshold?: number;
  /** Tokens; default 128000. */
  contextWindow?: number;
  /** Also fold once more than this many turns would be shown verbatim. */
  triggerAfterTurns?: number;
  /** Turns always shown verbatim (at least 1); default 2. */
  keepRecentTurns?: number;
  /** Writes the summary; default the template. */
  summarize?: FoldSummarizer;
  /** The strategy's name, for the loom's fold record; default "template". */
  strategy?: string;
}

/** One entity's fold: turns [0, folded) of its marks are behind `summary`. */
interface FoldState {
  folded: number;
  summary: string | null;
  /** History length at the last view: what was added since is estimated, not measured. */
  seen: number;
}

const chars = (messages: readonly Message[], from = 0): number => {
  let n = 0;
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    n += (m.content ?? "").length;
    if (m.role === "assistant")
      for (const c of m.toolCalls ?? []) n += c.name.length + c.arguments.length;
  }
  return n;
};

export const foldMarker = (from: number, to: number): string => `[Folded: turns ${from}-${to}]`;

/** A view that folds; its state is kept per entity (per history), nothing global. */
export function foldingView(options: FoldingOptions = {}): ContextView {
  const threshold = options.threshold ?? DEFAULT_FOLD_THRESHOLD;
  const budget = threshold * (options.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  const keep = Math.max(1, options.keepRecentTurns ?? DEFAULT_KEEP_RECENT_TURNS);
  const summarize = options.summarize ?? templateSummary;
  const strategy = options.strategy ?? "template";
  const states = new WeakMap<readonly Message[], FoldState>();

  return async (history, ctx) => {
    let state = states.get(history);
    if (!state) states.set(history, (state = { folded: 0, summary: null, seen: 0 }));
    const { marks } = ctx;
    let view = build(history, marks, ctx.intentIndex, state);
    const estimate = estimateTokens(view, history, state, ctx);
    const shown = marks.length - state.folded;
    const due =
      estimate > budget ||
      (options.triggerAfterTurns !== undefined && shown > options.triggerAfterTurns);
    const upTo = marks.length - keep;
    if (due && upTo > state.folded) {
      const from = state.folded;
      const turns = marks.slice(from, upTo).map((mark, i) => ({
        sequence: mark.sequence,
        messages: history.slice(mark.start, marks[from + i + 1]?.start ?? history.length),
      }));
      const first = marks[0]!;
      const last = marks[upTo - 1]!;
      const input = {
        fromSequence: first.sequence,
        toSequence: last.sequence,
        turns,
        previous: state.summary,
      };
      state.summary = await summarize(input);
      state.folded = upTo;
      ctx.recordFold({
        entityId: ctx.entityId,
        fromSequence: first.sequence,
        toSequence: last.sequence,
        fromTurnId: first.id,
        toTurnId: last.id,
        summary: state.summary,
        strategy,
        estimatedTokens: Math.round(estimate),
      });
      view = build(history, marks, ctx.intentIndex, state);
    }
    state.seen = history.length;
    return view;
  };
}

/** head (system + first intent) · the fold · the current intent if it was folded · recent turns. */
function build(
  history: readonly Message[],
  marks: readonly TurnMark[],
  intentIndex: number,
  state: FoldState,
): readonly Message[] {
  if (state.folded === 0 || state.summary === null) return history;
  const headEnd = marks[0]!.start;
  const tailStart = marks[state.folded]!.start;
  const first = marks[0]!.sequence;
  const last = marks[state.folded - 1]!.sequence;
  const fold: Message = { role: "user", content: `${foldMarker(first, last)}\n${state.summary}` };
  const view: Message[] = [...history.slice(0, headEnd), fold];
  if (intentIndex >= headEnd && intentIndex < tailStart) view.push(history[intentIndex]!);
  for (let i = tailStart; i < history.length; i++) view.push(history[i]!);
  return view;
}

/** The last query's reported prompt tokens plus chars/4 of what was added since; chars/4 of the whole view before any usage is known. */
function estimateTokens(
  view: readonly Message[],
  history: readonly Message[],
  state: FoldState,
  ctx: ViewContext,
): number {
  const prompt = ctx.lastUsage?.promptTokens ?? 0;
  if (prompt > 0) return prompt + chars(history, state.seen) / CHARS_PER_TOKEN;
  return chars(view) / CHARS_PER_TOKEN;
}
