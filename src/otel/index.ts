/**
 * `spellbook/otel`: a cast's events, or a loom's records, as OpenTelemetry GenAI spans, for a
 * library user with a tracer of their own (docs/design/OTEL.md). Nothing here sets up an SDK or
 * an exporter: the user's tracer decides where spans go (`spell run --otel` sets one up in
 * cli/otel/tracing.ts). `@opentelemetry/api` is imported on the first `castSpans` call.
 */
import type { Tracer } from "@opentelemetry/api";
import type { EventListener } from "../core/events.js";
import { Redactor } from "../core/redact.js";
import { KEY_ENV_VARS } from "../llm/index.js";
import { modelOf } from "./attributes.js";
import { eventSpans } from "./event-spans.js";
import type { GenAiMetrics } from "./metrics.js";

export { eventSpans, type EventSpanOptions } from "./event-spans.js";
export { loomSpans, type LoomSpanOptions } from "./loom-spans.js";
export { genAiMetrics, type GenAiMetrics } from "./metrics.js";
export { modelOf, type ModelId } from "./attributes.js";
export type { OtelApi } from "./api.js";

export interface CastSpanOptions {
  /** The root agent's `gen_ai.agent.name` (the spell's or the program's name). */
  name: string;
  /** `provider/model` until the first LLM call names its own; default `unknown`. */
  model?: string | undefined;
  /** Send utterances, gate arguments and results; default false (only names, sizes, usage). */
  content?: boolean | undefined;
  /**
   * Applied to every text sent when `content` is on (e.g. a `Redactor`'s `redact`, knowing the
   * program's secrets); default: the provider keys set in the environment and the common
   * shapes of keys and tokens (`sk-…`, `Bearer …`), in every form a `Redactor` knows.
   */
  redact?: ((text: string) => string) | undefined;
  /** The GenAI client metrics each LLM call is measured into (`genAiMetrics(meter)`). */
  metrics?: GenAiMetrics | undefined;
}

export interface CastSpans {
  /** Pass as a cast's `onEvent`: every event becomes a span's start, end or attributes. */
  listener: EventListener;
  /** Ends whatever a failed or aborted cast left open (with its error type). */
  end: (errorType?: string) => void;
  /** True when no span is open. */
  idle: () => boolean;
}

/** Spans of a cast on `tracer`: `invoke_agent`, `chat {model}` and `execute_tool {gate}`. */
export async function castSpans(tracer: Tracer, options: CastSpanOptions): Promise<CastSpans> {
  const api = await import("@opentelemetry/api");
  return eventSpans(api, tracer, {
    name: options.name,
    model: modelOf(options.model),
    content: options.content ?? false,
    redact: options.redact ?? defaultRedact(),
    metrics: options.metrics,
  });
}

/** What `castSpans` redacts when it is given nothing: never the text as it is. */
function defaultRedact(): (text: string) => string {
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(process.env[name]);
  return (text) => redactor.redact(text);
}
