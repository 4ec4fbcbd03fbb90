/**
 * `spell eval --otel`: the run as one `invoke_workflow {eval name}` span (GenAI conventions:
 * `gen_ai.operation.name=invoke_workflow`, `gen_ai.workflow.name`), and under it each cast as the
 * spans `spell run --otel` sends (its `invoke_agent` span, chat and execute_tool spans, children
 * nested). The conventions define no span for a case: a cast's case and repeat are attributes of
 * its agent span, and so is its verdict (`gen_ai.evaluation.score.value` / `.score.label`, the
 * evaluation result's own names; `gen_ai.evaluation.explanation` only with `--otel-content`).
 * The judge's queries are `chat` spans under the cast they judged.
 */
import type { Context, Span, Tracer } from "@opentelemetry/api";
import type { LLM, LLMResponse } from "../../core/contract.js";
import { SpellbookError } from "../../core/errors.js";
import type { CastInfo, CastObserver, CastWatcher } from "../../eval/observe.js";
import type { EvalRunResult } from "../../eval/run.js";
import type { CliIO } from "../io.js";
import type { OtelApi } from "../../otel/api.js";
import { chatAttributes, chatSpanName, modelOf, usageAttributes } from "../../otel/attributes.js";
import { eventSpans } from "../../otel/event-spans.js";
import type { GenAiMetrics } from "../../otel/metrics.js";
import { startOtel, type OtelFlags } from "./tracing.js";

export interface EvalSpans {
  watch: CastWatcher;
  /** Ends the run's span with its counts (none when the run failed before its report). */
  end(result: EvalRunResult | undefined): void;
}

/** `spell eval`'s OpenTelemetry as its flags and the environment ask (see startOtel). */
export async function startEvalOtel(
  flags: OtelFlags,
  name: string,
  io: CliIO,
): Promise<
  | { watch: CastWatcher; finish(result: EvalRunResult | undefined): Promise<void> }
  | number
  | undefined
> {
  const session = await startOtel(flags, { name, llmName: undefined, redact: (t) => t }, io);
  if (session === undefined || typeof session === "number") return session;
  const content = flags["otel-content"] === true;
  const spans = evalSpans(session.api, session.tracer, name, content, session.metrics);
  return {
    watch: spans.watch,
    finish: async (result) => {
      spans.end(result);
      await session.shutdown();
    },
  };
}

export function evalSpans(
  api: OtelApi,
  tracer: Tracer,
  name: string,
  content: boolean,
  metrics?: GenAiMetrics,
): EvalSpans {
  const run = tracer.startSpan(
    `invoke_workflow ${name}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": name },
    },
    api.ROOT_CONTEXT,
  );
  const runCtx = api.trace.setSpan(api.ROOT_CONTEXT, run);
  return {
    watch: (info) => castSpans(api, tracer, info, runCtx, content, metrics),
    end(result) {
      if (result) {
        const count = (key: "passed" | "failed" | "errored") =>
          result.groups.reduce((n, g) => n + g[key], 0);
        run.setAttributes({
          "spellbook.eval.casts": result.done,
          "spellbook.eval.total": result.total,
          "spellbook.eval.passed": count("passed"),
          "spellbook.eval.failed": count("failed"),
          "spellbook.eval.errored": count("errored"),
          "spellbook.eval.interrupted": result.interrupted,
        });
      } else run.setStatus({ code: api.SpanStatusCode.ERROR, message: "the eval did not finish" });
      run.end();
    },
  };
}

function castSpans(
  api: OtelApi,
  tracer: Tracer,
  info: CastInfo,
  runCtx: Context,
  content: boolean,
  metrics: GenAiMetrics | undefined,
): CastObserver {
  let held: { span: Span; ctx: Context; end: number } | undefined;
  const spans = eventSpans(api, tracer, {
    name: info.name,
    model: modelOf(info.llm),
    content,
    redact: info.redact,
    parent: runCtx,
    rootAttributes: { "spellbook.eval.case": info.case, "spellbook.eval.repeat": info.repeat },
    keepRoot: (span, ctx, end) => (held = { span, ctx, end }),
    metrics,
  });
  return {
    onEvent: spans.listener,
    judge: (llm) =>
      judgeLLM(api, tracer, llm, () => held?.ctx ?? runCtx, {
        content,
        redact: info.redact,
        metrics,
      }),
    end(row) {
      spans.end(); // what a cast that failed left open
      if (!held) return;
      held.span.setAttributes({
        "gen_ai.evaluation.name": "spellbook.eval",
        "gen_ai.evaluation.score.value": row.score,
        "gen_ai.evaluation.score.label": row.status,
        ...(content ? { "gen_ai.evaluation.explanation": info.redact(row.reason) } : {}),
      });
      held.span.end(held.end);
    },
  };
}

/** The judge's LLM, each query a `chat {model}` span under the cast it judges. */
function judgeLLM(
  api: OtelApi,
  tracer: Tracer,
  llm: LLM,
  parent: () => Context,
  how: {
    content: boolean;
    redact: (text: string) => string;
    metrics: GenAiMetrics | undefined;
  },
): LLM {
  const { content, redact, metrics } = how;
  const m = modelOf(llm.name);
  return {
    name: llm.name,
    async query(messages, options) {
      const span = tracer.startSpan(
        chatSpanName(m),
        { kind: api.SpanKind.CLIENT, attributes: chatAttributes(m) },
        parent(),
      );
      const started = Date.now();
      const seconds = () => (Date.now() - started) / 1000;
      try {
        const reply = await llm.query(messages, options);
        const responseModel = reply.metadata?.["model"];
        metrics?.chat({
          model: m,
          ...(typeof responseModel === "string" ? { responseModel } : {}),
          server: llm.server,
          seconds: seconds(),
          usage: reply.usage,
        });
        span.setAttributes(usageAttributes(reply.usage));
        span.setAttribute("gen_ai.response.finish_reasons", [finishReason(reply)]);
        if (content && reply.content !== null)
          span.setAttribute("gen_ai.output.messages", redact(reply.content));
        return reply;
      } catch (err) {
        const type = err instanceof SpellbookError ? err.code : "provider_error";
        metrics?.chat({ model: m, server: llm.server, seconds: seconds(), errorType: type });
        span.setAttribute("error.type", type);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
        throw err;
      } finally {
        span.end();
      }
    },
  };
}

const finishReason = (reply: LLMResponse): string => {
  const said = reply.metadata?.["finish_reason"] ?? reply.metadata?.["stop_reason"];
  return typeof said === "string" ? said : "stop";
};
