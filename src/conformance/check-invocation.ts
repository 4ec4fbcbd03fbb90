/** Expectations on what the LLM was sent: `llm_invocations`, in the wire's words. */
import { ConfigError } from "../core/errors.js";
import type { Message } from "../core/contract.js";
import type { RecordedQuery } from "../llm/providers/scripted.js";
import type { Built } from "./build.js";
import type { Outcome } from "./act.js";
import { looselyEqual, matchValue, show, type MatchContext } from "./match.js";

export function wireMessage(m: Message): Record<string, unknown> {
  switch (m.role) {
    case "assistant":
      return {
        role: m.role,
        content: m.content,
        ...(m.toolCalls
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                name: c.name,
                arguments: c.arguments,
              })),
            }
          : {}),
      };
    case "tool":
      return { role: m.role, tool_call_id: m.toolCallId, content: m.content };
    default:
      return { role: m.role, content: m.content };
  }
}

const text = (q: RecordedQuery): string => JSON.stringify(q.messages.map(wireMessage));

export function checkInvocation(
  want: Record<string, unknown>,
  q: RecordedQuery,
  m: MatchContext,
  path: string,
): string | null {
  for (const [key, value] of Object.entries(want)) {
    let r: string | null;
    switch (key) {
      case "messages":
        r = matchValue(value, q.messages.map(wireMessage), m, `${path}.messages`);
        break;
      case "message_count":
        r = looselyEqual(value, q.messages.length)
          ? null
          : `${path}.message_count: expected ${show(value)}, got ${q.messages.length}`;
        break;
      case "first_message":
        r = matchValue(
          value,
          q.messages[0] && wireMessage(q.messages[0]),
          m,
          `${path}.first_message`,
        );
        break;
      case "messages_include":
      case "message_count_includes": // another suite's name for the same check (CONFORMANCE.md)
        r = text(q).includes(JSON.stringify(String(value)).slice(1, -1))
          ? null
          : `${path}: no message includes ${show(value)}`;
        break;
      case "messages_exclude":
      case "message_count_excludes":
        r = text(q).includes(JSON.stringify(String(value)).slice(1, -1))
          ? `${path}: a message includes ${show(value)}`
          : null;
        break;
      case "tools": // LOOM-6: the gate definitions go with every query, folded or not
        r = matchValue(
          value,
          q.tools.map((t) => t.name),
          m,
          `${path}.tools`,
        );
        break;
      case "tool_choice":
        r = looselyEqual(value, q.toolChoice)
          ? null
          : `${path}.tool_choice: expected ${show(value)}, got ${show(q.toolChoice)}`;
        break;
      default:
        throw new ConfigError(
          "unsupported_expectation",
          `unsupported expectation: llm_invocations[].${key}`,
        );
    }
    if (r) return r;
  }
  return null;
}

/** `llm`, or — in a case of named LLMs only — the one the last cast used. */
export function mainLLM(b: Built, o: Outcome) {
  const llm = b.llms.get("llm") ?? b.llms.get(o.llmKeys[o.llmKeys.length - 1] ?? b.defaultLLM);
  if (!llm) throw new ConfigError("no_llm", "this expectation needs setup.llm");
  return llm;
}

/** A count of queries, or a list matched position by position. */
export function invocationList(
  want: unknown,
  qs: readonly RecordedQuery[],
  m: MatchContext,
  path: string,
): string | null {
  if (typeof want === "number")
    return qs.length === want ? null : `${path}: expected ${want}, got ${qs.length}`;
  // A list is a prefix, position by position (as turn lists are): [{}] = at least one query.
  const list = want as Record<string, unknown>[];
  if (list.length > qs.length)
    return `${path}: expected at least ${list.length} queries, got ${qs.length}`;
  for (let i = 0; i < list.length; i++) {
    const r = checkInvocation(list[i] ?? {}, qs[i]!, m, `${path}[${i}]`);
    if (r) return r;
  }
  return null;
}
