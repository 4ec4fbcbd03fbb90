/**
 * How a fold's summary is written (§6.8 leaves it free): `template` renders the folded turns
 * deterministically, offline; `llm` asks an LLM (the entity's own, or another) to write it.
 */
import type { LLM, Message } from "./contract.js";

/** The turns a fold covers, and the summary of the fold before it (folds grow, never shrink). */
export interface FoldInput {
  fromSequence: number;
  toSequence: number;
  /** The newly folded turns, one list of messages per turn. */
  turns: readonly { sequence: number; messages: readonly Message[] }[];
  /** The previous fold's summary, which this one extends; null on the first fold. */
  previous: string | null;
}

export type FoldSummarizer = (input: FoldInput, signal?: AbortSignal) => Promise<string> | string;

const clip = (text: string, n: number): string =>
  text.length <= n ? text : `${text.slice(0, n)}… (${text.length} chars)`;

/** One line per message: what was said, which gates were called, what came back. */
function renderMessage(m: Message): string | null {
  switch (m.role) {
    case "assistant": {
      const parts: string[] = [];
      if (m.content) parts.push(`said ${JSON.stringify(clip(m.content, 200))}`);
      for (const c of m.toolCalls ?? []) parts.push(`called ${c.name}(${clip(c.arguments, 120)})`);
      return parts.length ? parts.join("; ") : null;
    }
    case "tool":
      return `${m.isError ? "error" : "result"}: ${clip(m.content, 200)}`;
    case "user":
      return `user: ${clip(m.content, 200)}`;
    case "system":
      return null;
  }
}

/** The folded turns as plain lines; used by both strategies. */
export function renderTurns(turns: FoldInput["turns"]): string {
  return turns
    .map((t) => {
      const lines = t.messages.map(renderMessage).filter((l): l is string => l !== null);
      return `turn ${t.sequence}: ${lines.join(" | ") || "(nothing)"}`;
    })
    .join("\n");
}

/** Deterministic and offline: the previous summary, then one line per newly folded turn. */
export const templateSummary: FoldSummarizer = (input) => {
  const lines = renderTurns(input.turns);
  return input.previous ? `${input.previous}\n${lines}` : lines;
};

const INSTRUCTION =
  "You compress an agent's earlier turns so it can keep working. Write a short factual summary: " +
  "what was asked, what was tried, what was found (values, names, errors), what remains. " +
  "Do not invent anything. Reply with the summary only.";

/** An LLM writes the summary from the previous one and the newly folded turns. */
export function llmSummary(llm: LLM): FoldSummarizer {
  return async (input, signal) => {
    const body =
      (input.previous ? `Summary so far:\n${input.previous}\n\n` : "") +
      `Turns ${input.turns[0]?.sequence ?? input.fromSequence}-${input.toSequence}:\n${renderTurns(input.turns)}`;
    const messages: Message[] = [
      { role: "system", content: INSTRUCTION },
      { role: "user", content: body },
    ];
    const reply = await llm.query(messages, signal ? { signal } : {});
    const text = reply.content?.trim();
    // A summary the model did not write falls back to the template: a fold never loses the turns.
    return text ? text : templateSummary(input);
  };
}
