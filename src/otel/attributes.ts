/**
 * The OpenTelemetry GenAI semantic conventions' names, written once for the live spans
 * (event-spans.ts) and the replayed ones (loom-spans.ts). Content attributes are opt-in
 * (`--otel-content`) and always pass through the redactor first.
 */
import type { Attributes } from "@opentelemetry/api";
import type { Usage } from "../core/contract.js";
import { redactedJson } from "../core/redact-stream.js";

/** Who answered: `provider/model` (an LLM's `name`) split once; "unknown" when absent. */
export interface ModelId {
  provider: string;
  model: string;
}

export function modelOf(name: string | undefined): ModelId {
  if (!name) return { provider: "unknown", model: "unknown" };
  const at = name.indexOf("/");
  return at < 0
    ? { provider: name, model: name }
    : { provider: name.slice(0, at), model: name.slice(at + 1) };
}

/** The loom's per-turn `llm: {provider, model}` when the turn has it (newer looms). */
export function turnModel(turn: {
  llm?: unknown;
  metadata?: Record<string, unknown>;
}): ModelId | undefined {
  const llm = turn.llm as { provider?: unknown; model?: unknown } | undefined;
  if (llm && typeof llm.provider === "string" && typeof llm.model === "string")
    return { provider: llm.provider, model: llm.model };
  return undefined;
}

export const agentSpanName = (name: string): string => `invoke_agent ${name}`;

/** Levels of children named in full ("owls child child"); deeper ones say their depth. */
const NAMED_LEVELS = 8;

/**
 * A child entity's `gen_ai.agent.name`: the root's name and " child" for each level
 * ("owls child child"), or past 8 levels its depth ("owls child×12") — a name per level would make
 * a deep chain's names grow with its depth (a hostile loom's 50,000 levels: gigabytes of names).
 */
export function childAgentName(root: string, depth: number): string {
  return depth <= NAMED_LEVELS ? root + " child".repeat(depth) : `${root} child×${depth}`;
}
export const chatSpanName = (m: ModelId): string => `chat ${m.model}`;
export const toolSpanName = (gate: string): string => `execute_tool ${gate}`;

export function agentAttributes(name: string, entityId: string, m: ModelId): Attributes {
  return {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": name,
    "gen_ai.agent.id": entityId,
    "gen_ai.provider.name": m.provider,
    "gen_ai.request.model": m.model,
  };
}

export function chatAttributes(m: ModelId): Attributes {
  return {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": m.provider,
    "gen_ai.request.model": m.model,
  };
}

export function usageAttributes(usage: Usage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.promptTokens,
    "gen_ai.usage.output_tokens": usage.completionTokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cachedTokens,
  };
}

/** The provider gave no finish reason to the loop: a turn that called gates ended on tool calls. */
export const finishReasons = (gates: number): string[] => [gates > 0 ? "tool_call" : "stop"];

export function toolAttributes(gate: string): Attributes {
  return {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": gate,
    "gen_ai.tool.type": "function",
  };
}

/** The one error.type of a failed gate call (low cardinality, as the convention asks). */
export const GATE_ERROR = "gate_error";

/** The gate-call timing the loom gains in its next version (`started_at`, `duration_ms`). */
export function gateTiming(record: unknown): { start: number; end: number } | undefined {
  const r = record as { started_at?: unknown; duration_ms?: unknown };
  if (typeof r.started_at !== "string" || typeof r.duration_ms !== "number") return undefined;
  const start = Date.parse(r.started_at);
  return Number.isNaN(start) ? undefined : { start, end: start + r.duration_ms };
}

/**
 * The longest content attribute sent (`gen_ai.output.messages`, a gate call's arguments and
 * result), in characters: a gate that read a whole file, or a hostile loom's megabyte string,
 * must not make one span the size of a collector's whole request (nor each of a million spans).
 */
export const MAX_CONTENT_CHARS = 16 * 1024;

/**
 * A content attribute's value: text (a hostile loom's object or number as its JSON), redacted
 * whole, then cut to MAX_CONTENT_CHARS (after redacting, so no cut leaves half a secret).
 */
export function contentValue(value: unknown, redact: (text: string) => string): string {
  let out: string;
  if (typeof value === "string") out = redact(value);
  else {
    try {
      // Each string redacted before it is encoded, then the text (redact-stream.ts).
      const json: string | undefined = redactedJson(value, redact);
      out = json ?? redact(String(value));
    } catch {
      out = "[unserializable]";
    }
  }
  if (out.length <= MAX_CONTENT_CHARS) return out;
  // Never half a surrogate pair at the cut.
  const cut = /[\uD800-\uDBFF]/.test(out[MAX_CONTENT_CHARS - 1]!)
    ? MAX_CONTENT_CHARS - 1
    : MAX_CONTENT_CHARS;
  return `${out.slice(0, cut)}…[${out.length - cut} more characters]`;
}
