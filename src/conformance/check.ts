import { ConfigError } from "../core/errors.js";
import type { UsageTotals } from "../core/result.js";
import type { Turn } from "../loom/records/index.js";
import { looselyEqual, matchValue, show, type MatchContext } from "./match.js";
import { invocationList, mainLLM } from "./check-invocation.js";
import { childTurns, matchTurns, parseMaybe } from "./check-turns.js";
import { threadRole } from "./spellings.js";
import { checkAcpResponses } from "./check-acp.js";
import { castTurns, last, roles, threadN, threadOf, type Check } from "./check-threads.js";
import { ownEntry } from "../core/own.js";
import { resultChecks } from "./check-result.js";

export { wireMessage } from "./check-invocation.js";
export { checkError } from "./check-turns.js";

/** Messages in the wire shape the suite writes (snake_case, role/content/tool_calls). */
/** The suite speaks the wire's snake_case; the TypeScript API's usage is camelCase. */
function usageMatch(want: unknown, got: UsageTotals, path: string, m: MatchContext): string | null {
  const wire = {
    prompt_tokens: got.promptTokens,
    completion_tokens: got.completionTokens,
    cached_tokens: got.cachedTokens,
    total_tokens: got.totalTokens,
  };
  return matchValue(want, wire, m, path);
}

/** Every expectation key the runner knows by name (`thread_N` and `NAME_invocations` aside). */
export const expectationKeys = (): string[] => Object.keys(checks);

/** The check for an expectation key, or undefined for a key the runner does not know. */
export function checkFor(key: string): Check | undefined {
  const n = /^thread_(\d+)$/.exec(key);
  if (n) return threadN(Number(n[1]));
  const named = /^(\w+_llm)_invocations$/.exec(key);
  return named ? invocationsOf(named[1]!) : ownEntry(checks, key);
}

/** `<name>_invocations` (e.g. `fork_llm_invocations`): the queries a named setup LLM answered. */
function invocationsOf(name: string): Check {
  return (w, _o, b, m) => {
    const llm = b.llms.get(name);
    if (!llm) throw new ConfigError("no_llm", `${name}_invocations needs setup.${name}`);
    return invocationList(w, llm.invocations, m, `${name}_invocations`);
  };
}

/** Every expectation key the runner understands. An unknown key is an error, never ignored. */
const checks: Record<string, Check> = {
  result_matches: (w, o) => resultChecks.result_matches(w, () => last(o)),
  result_schema: (w, o) => resultChecks.result_schema(w, () => last(o)),
  max_turns: (w, o) => resultChecks.max_turns(w, () => last(o)),
  result: (w, o) =>
    looselyEqual(w, last(o).result)
      ? null
      : `result: expected ${show(w)}, got ${show(last(o).result)}`,
  result_contains: (w, o) =>
    String(
      typeof last(o).result === "string" ? last(o).result : JSON.stringify(last(o).result),
    ).includes(String(w))
      ? null
      : `result ${show(last(o).result)} does not contain ${show(w)}`,
  results: (w, o, _b, m) =>
    matchValue(
      w,
      o.casts.map((c) => c.result),
      m,
      "results",
    ),
  entities: (w, _o, b) => {
    const n = new Set(b.loom.turns().map((t) => t.entity_id)).size;
    return looselyEqual(w, n) ? null : `entities: expected ${show(w)}, got ${n}`;
  },
  entity_ids_unique: (w, o) => {
    const ids = o.casts.map((c) => c.entityId);
    const unique = new Set(ids).size === ids.length;
    return unique === w ? null : `entity_ids_unique: expected ${show(w)}, ids ${show(ids)}`;
  },
  turns: (w, o) =>
    looselyEqual(w, last(o).turns) ? null : `turns: expected ${show(w)}, got ${last(o).turns}`,
  terminated: (w, o) =>
    last(o).terminated === w
      ? null
      : `terminated: expected ${show(w)}, got ${last(o).terminated} (reason ${last(o).reason})`,
  truncated: (w, o) =>
    last(o).truncated === w
      ? null
      : `truncated: expected ${show(w)}, got ${last(o).truncated} (reason ${last(o).reason})`,
  reason: (w, o) =>
    looselyEqual(w, last(o).reason)
      ? null
      : `reason: expected ${show(w)}, got ${show(last(o).reason)}`,
  gate_calls_executed: (w, o, b) => {
    const names = castTurns(o, b).flatMap((t) => t.gate_calls.map((g) => g.gate_name));
    return looselyEqual([...(w as string[])].sort(), [...names].sort())
      ? null
      : `gate_calls_executed: expected ${show(w)}, got ${show(names)}`;
  },
  gate_call_order: (w, o, b, m) =>
    matchValue(
      w,
      castTurns(o, b).flatMap((t) => t.gate_calls.map((g) => g.gate_name)),
      m,
      "gate_call_order",
    ),
  gate_results: (w, o, b, m) =>
    matchValue(
      w,
      castTurns(o, b).flatMap((t) => t.gate_calls.map((g) => parseMaybe(g.result))),
      m,
      "gate_results",
    ),
  turn_1_observation: (w, o, b) => {
    const turn = castTurns(o, b)[0];
    if (!turn) return "turn_1_observation: the cast has no turns";
    for (const [key, value] of Object.entries(w as object)) {
      const first = turn.gate_calls[0];
      if (key === "is_error") {
        const isError = turn.is_error === true || turn.gate_calls.some((g) => g.is_error);
        if (isError !== value)
          return `turn_1_observation.is_error: expected ${show(value)}, got ${isError} (${turn.observation})`;
      } else if (key === "content") {
        const content = first ? first.result : turn.observation;
        if (!looselyEqual(value, content))
          return `turn_1_observation.content: expected ${show(value)}, got ${show(content)}`;
      } else if (key === "content_contains") {
        const texts = [turn.observation, ...turn.gate_calls.map((g) => g.result)];
        if (!texts.some((t) => t.includes(String(value))))
          return `turn_1_observation: ${show(turn.observation)} does not contain ${show(value)}`;
      } else
        throw new ConfigError(
          "unsupported_expectation",
          `unsupported expectation: turn_1_observation.${key}`,
        );
    }
    return null;
  },
  llm_invocations: (w, o, b, m) =>
    invocationList(w, mainLLM(b, o).invocations, m, "llm_invocations"),
  llm_received_tool_choice: (w, o, b) => {
    const got = mainLLM(b, o).invocations.map((q) => q.toolChoice);
    return got.length > 0 && got.every((c) => c === w)
      ? null
      : `llm_received_tool_choice: expected ${show(w)}, got ${show(got)}`;
  },
  llm_received_tools: (w, o, b) => {
    const q = mainLLM(b, o).invocations[0];
    const want = (w as { name: string }[]).map((t) => t.name).sort();
    const got = (q?.tools ?? []).map((t) => t.name).sort();
    return looselyEqual(want, got)
      ? null
      : `llm_received_tools: expected ${show(want)}, got ${show(got)}`;
  },
  usage: (w, o, _b, m) => usageMatch(w, last(o).usage, "usage", m),
  cumulative_usage: (w, o, _b, m) => usageMatch(w, last(o).cumulativeUsage, "cumulative_usage", m),
  thread: (w, o, b, m) => {
    const thread = threadOf(o, b);
    if (Array.isArray(w)) return matchValue(w.map(threadRole), roles(thread), m, "thread");
    const { length, turns, ...rest } = w as { length?: number; turns?: unknown[] };
    if (Object.keys(rest).length)
      throw new ConfigError(
        "unsupported_expectation",
        `unsupported expectation: thread.${Object.keys(rest)[0]}`,
      );
    if (length !== undefined && length !== thread.length)
      return `thread.length: expected ${length}, got ${thread.length}`;
    return turns ? matchTurns(turns, thread, m, "thread.turns") : null;
  },
  threads: (w, _o, b) => {
    const n = b.loom.leaves().length;
    return looselyEqual(w, n) ? null : `threads: expected ${show(w)}, got ${n}`;
  },
  child_turns: (w, o, b, m) => {
    const turns = childTurns(o, b);
    if (Array.isArray(w)) return matchTurns(w, turns, m, "child_turns");
    return looselyEqual(w, turns.length)
      ? null
      : `child_turns: expected ${show(w)}, got ${turns.length}`;
  },
  child_truncated: (w, o, b) => {
    // true: some child entity's last turn was a truncation (COMP-9); false: none was.
    const last = new Map<string, Turn>();
    for (const t of childTurns(o, b)) last.set(t.entity_id, t);
    const truncated = [...last.values()].filter((t) => t.truncated);
    const got = truncated.length > 0;
    return got === w
      ? null
      : `child_truncated: expected ${show(w)}, got ${got} (children's last turns: ${show([...last.values()].map((t) => t.reason))})`;
  },
  loom: (w, _o, b, m) => {
    const { turn_count, identity, turns, folds, ...rest } = w as {
      turn_count?: number;
      identity?: unknown;
      turns?: unknown[];
      folds?: unknown;
    };
    if (Object.keys(rest).length)
      throw new ConfigError(
        "unsupported_expectation",
        `unsupported expectation: loom.${Object.keys(rest)[0]}`,
      );
    const all = b.loom.turns();
    if (turn_count !== undefined && !looselyEqual(turn_count, all.length))
      return `loom.turn_count: expected ${turn_count}, got ${all.length}`;
    if (identity !== undefined) {
      const first = all[0];
      const node = first ? b.loom.identity(first.cantrip_id) : undefined;
      const r = matchValue(identity, node?.identity, m, "loom.identity");
      if (r) return r;
    }
    // §6.8: the folds recorded beside the turns (which turns, the summary, the strategy).
    const f = folds === undefined ? null : matchValue(folds, b.loom.folds(), m, "loom.folds");
    if (f) return f;
    return turns ? matchTurns(turns, all, m, "loom.turns") : null;
  },
  acp_responses: (w, o) => checkAcpResponses(w, o),
  logs_exclude: (w, o) => {
    const hit = o.logs.find((l) => l.includes(String(w)));
    return hit ? `a log line contains ${show(w)}: ${show(hit)}` : null;
  },
  loom_export_exclude: (w, o) => {
    if (o.exported === undefined)
      throw new ConfigError(
        "unsupported_expectation",
        "loom_export_exclude needs then.export_loom",
      );
    return o.exported.includes(String(w)) ? `the loom export contains ${show(w)}` : null;
  },
};
