/**
 * The triage agent (brief §2.2): one call with the brief's system prompt; its reply must be the
 * TriageOutput JSON, nothing else. A reply that is not JSON, or breaks the schema, raises — the
 * engine neither retries nor repairs (non-goal 9), and the agent never answers the query.
 */
import { cutQuote, withoutParsedQuote } from "../core/cut-quote.js";
import { ModelError } from "../core/errors.js";
import type { LLM } from "../core/contract.js";
import type { CouncilCalls } from "./calls.js";
import { TRIAGE_SYSTEM_PROMPT } from "./prompts/triage-prompt.js";
import { blocks } from "./seats.js";
import { toTriageOutput, type TriageCheck } from "./triage-output.js";
import type { TriageOutput } from "./types.js";

/** The triage agent's user message: the raw query, and the caller's context when given. */
export function triageUserMessage(
  query: string,
  context?: Readonly<Record<string, unknown>>,
): string {
  return blocks(
    [null, query],
    ["CONTEXT (metadata from the caller, JSON)", context ? JSON.stringify(context) : null],
  );
}

export async function runTriage(
  llm: LLM,
  calls: CouncilCalls,
  check: TriageCheck,
  query: string,
  context?: Readonly<Record<string, unknown>>,
): Promise<TriageOutput> {
  const reply = await calls.ask({
    llm,
    messages: [
      { role: "system", content: TRIAGE_SYSTEM_PROMPT },
      { role: "user", content: triageUserMessage(query, context) },
    ],
    site: { phase: "triage" },
  });
  return parseTriageReply(reply, check);
}

/** A triage reply → TriageOutput, or a ModelError saying every problem `check` finds (no retry). */
export function parseTriageReply(reply: string, check: TriageCheck): TriageOutput {
  let value: unknown;
  try {
    value = JSON.parse(reply);
  } catch (err) {
    throw new ModelError(
      "triage_invalid_json",
      `the triage agent's reply is not a JSON object (${withoutParsedQuote((err as Error).message)}); it is not retried: ${excerpt(reply)}`,
    );
  }
  const problems = check(value);
  if (problems.length) {
    throw new ModelError(
      "triage_invalid",
      `the triage agent's output is invalid; it is not retried or corrected:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
  }
  return toTriageOutput(value as Record<string, unknown>);
}

function excerpt(text: string): string {
  const t = text.trim();
  return JSON.stringify(cutQuote(t, 160));
}
