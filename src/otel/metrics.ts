/**
 * The GenAI client metrics of the OpenTelemetry semantic conventions, one measure per LLM call:
 * `gen_ai.client.operation.duration` (seconds; `error.type` when the call got no reply) and
 * `gen_ai.client.token.usage` (one input and one output record of the call's tokens). Their
 * attributes are names, models and the server asked: never a prompt, a reply or a secret.
 */
import type { Attributes, Histogram, Meter } from "@opentelemetry/api";
import type { LLMServer, Usage } from "../core/contract.js";
import { SpellbookError } from "../core/errors.js";
import type { ModelId } from "./attributes.js";

/** The convention's recommended boundaries for `gen_ai.client.token.usage` (powers of 4). */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** The convention's recommended boundaries for `gen_ai.client.operation.duration` (seconds). */
export const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

export const TOKEN_USAGE = "gen_ai.client.token.usage";
export const OPERATION_DURATION = "gen_ai.client.operation.duration";

/** One LLM call as the metrics see it. */
export interface ChatMeasure {
  model: ModelId;
  /** The model that answered, when the provider said it. */
  responseModel?: string | undefined;
  server?: LLMServer | undefined;
  seconds: number;
  /** The call's tokens; absent when it got no reply. */
  usage?: Usage | undefined;
  /** Why the call got no reply (a low-cardinality class, never a message). */
  errorType?: string | undefined;
}

export interface GenAiMetrics {
  chat(measure: ChatMeasure): void;
}

export function genAiMetrics(meter: Meter): GenAiMetrics {
  const duration: Histogram = meter.createHistogram(OPERATION_DURATION, {
    unit: "s",
    description: "GenAI operation duration.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const tokens: Histogram = meter.createHistogram(TOKEN_USAGE, {
    unit: "{token}",
    description: "Number of input and output tokens used.",
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  return {
    chat(m) {
      const attributes = chatMetricAttributes(m);
      duration.record(
        m.seconds,
        m.errorType === undefined ? attributes : { ...attributes, "error.type": m.errorType },
      );
      if (!m.usage) return;
      tokens.record(m.usage.promptTokens, { ...attributes, "gen_ai.token.type": "input" });
      tokens.record(m.usage.completionTokens, { ...attributes, "gen_ai.token.type": "output" });
    },
  };
}

/** The attributes both metrics share, as the chat span has them. */
export function chatMetricAttributes(m: ChatMeasure): Attributes {
  return {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": m.model.provider,
    "gen_ai.request.model": m.model.model,
    ...(m.responseModel === undefined ? {} : { "gen_ai.response.model": m.responseModel }),
    ...(m.server ? { "server.address": m.server.address, "server.port": m.server.port } : {}),
  };
}

/** An abort's reason as an `error.type`: a ward's or a caller's short name, else "aborted". */
export function abortErrorType(reason: string): string {
  return /^[a-z][a-z0-9_.]{0,63}$/.test(reason) ? reason : "aborted";
}

/** A failure's `error.type`: the project's error code (`provider_error`, …), else `_OTHER`. */
export function errorTypeOf(err: unknown): string {
  return err instanceof SpellbookError ? err.code : "_OTHER";
}
