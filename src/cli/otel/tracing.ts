/**
 * OpenTelemetry for any command that casts (`run`, `summon`, `serve`, `eval`): one call gives an
 * event listener that sends GenAI spans over OTLP/HTTP, and `shutdown()` that flushes them
 * before the process exits. The SDK is imported only here and only when asked, so a command
 * without `--otel` (and `spell --help`) never loads it.
 */
import type { Tracer } from "@opentelemetry/api";
import { errorMessage } from "../../core/errors.js";
import type { EventListener } from "../../core/events.js";
import type { LoadedSpell } from "../../spell/index.js";
import { EXIT, type CliIO } from "../io.js";
import type { OtelApi } from "../../otel/api.js";
import { modelOf } from "../../otel/attributes.js";
import { otelEndpoint, otelMetricsEndpoint, shownEndpoint } from "../../otel/endpoint.js";
import { eventSpans } from "../../otel/event-spans.js";
import { errorTypeOf, genAiMetrics, type GenAiMetrics } from "../../otel/metrics.js";

/** The flags every casting command takes. */
export interface OtelFlags {
  otel?: string | undefined;
  "otel-content"?: boolean | undefined;
}

export interface OtelSetup {
  /** The spell's name (the root agent's name). */
  name: string;
  /** The cast LLM's `provider/model`. */
  llmName: string | undefined;
  redact: (text: string) => string;
}

export interface OtelSession {
  api: OtelApi;
  tracer: Tracer;
  /** The GenAI client metrics (absent when no metrics endpoint follows from the settings). */
  metrics: GenAiMetrics | undefined;
  /** A fresh listener per cast or session (each keeps its own entities). */
  listener(): EventListener;
  /**
   * Ends what a failed cast left open (an LLM call cut off by `failure`: error.type its code),
   * flushes every span and metric and stops the exporters.
   */
  shutdown(failure?: unknown): Promise<void>;
}

/** What the spans need of a loaded spell: its name, its LLM and its redactor. */
export function otelSetup(loaded: LoadedSpell): OtelSetup {
  return {
    name: loaded.name,
    llmName: loaded.cantrip?.llm.name,
    redact: (t) => loaded.redactor.redact(t),
  };
}

/** The tracer behind an OTLP/HTTP exporter at `url` (the SDK imported now). */
export async function otelTracer(
  url: string,
  io: CliIO,
): Promise<{
  api: OtelApi;
  tracer: Tracer;
  shutdown: () => Promise<void>;
  /** Whether an export failed (said on stderr): what `spell loom otel` exits non-zero on. */
  failed: () => boolean;
  /** Says a failed export once on stderr (the metrics' failures too). */
  tell: (msg: string) => void;
  /** Where the metrics go, named when their export fails. */
  metricsAt: (url: string) => void;
}> {
  const [api, sdk, exporter, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  // An export that fails (no collector there) is said once on stderr; the cast goes on.
  let told = false;
  let metricsUrl: string | undefined;
  const tell = (msg: string): void => {
    if (told) return;
    told = true;
    // The metrics reader says its failure through the same diag logger (as a JSON object).
    const what = /metrics export/.test(msg)
      ? `metrics not sent to ${metricsUrl ? shownEndpoint(metricsUrl) : "the collector"}`
      : `spans not sent to ${shownEndpoint(url)}`;
    io.stderr(`warning: --otel: ${what}: ${diagText(msg)}\n`);
  };
  api.diag.setLogger(
    { error: tell, warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} },
    api.DiagLogLevel.ERROR,
  );
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": "spellbook" }),
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url }))],
  });
  return {
    api,
    tracer: provider.getTracer("spellbook"),
    // A collector that is not there fails the last flush: said, never the command's failure.
    shutdown: () => provider.shutdown().catch((err: unknown) => tell(errorMessage(err))),
    failed: () => told,
    tell,
    metricsAt: (u: string) => void (metricsUrl = u),
  };
}

/**
 * What a diag error says, on one line: the SDK logs an error as its JSON (stack included) and
 * wraps the cause (`… export failed (error Error: connect ECONNREFUSED …)`): the cause alone.
 */
export function diagText(msg: string): string {
  let text = msg;
  try {
    const parsed = JSON.parse(msg) as { message?: unknown };
    if (typeof parsed?.message === "string") text = parsed.message;
  } catch {
    // not JSON: the text as it is
  }
  text = text.split("\n")[0]!;
  return /\(error (?:\w*Error: )?(.+)\)$/.exec(text)?.[1] ?? text;
}

/**
 * The GenAI client metrics behind an OTLP/HTTP metrics exporter at `url` (the SDK imported
 * now), read every `OTEL_METRIC_EXPORT_INTERVAL` ms (default 60000) and at `shutdown()`.
 */
export async function otelMeter(
  url: string,
  env: NodeJS.ProcessEnv,
  tell: (msg: string) => void,
): Promise<{ metrics: GenAiMetrics; shutdown: () => Promise<void> }> {
  const [sdk, exporter, resources] = await Promise.all([
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/exporter-metrics-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const every = Number(env["OTEL_METRIC_EXPORT_INTERVAL"]);
  const provider = new sdk.MeterProvider({
    resource: resources.resourceFromAttributes({ "service.name": "spellbook" }),
    readers: [
      new sdk.PeriodicExportingMetricReader({
        exporter: new exporter.OTLPMetricExporter({ url }),
        ...(Number.isInteger(every) && every > 0 ? { exportIntervalMillis: every } : {}),
      }),
    ],
  });
  return {
    metrics: genAiMetrics(provider.getMeter("spellbook")),
    shutdown: () => provider.shutdown().catch((err: unknown) => tell(errorMessage(err))),
  };
}

/**
 * OpenTelemetry as the flags and environment ask: undefined when off, an exit code (3) when
 * the endpoint is not a URL (said on stderr), else a session whose listener goes on the cast.
 */
export async function startOtel(
  flags: OtelFlags,
  setup: OtelSetup,
  io: CliIO,
): Promise<OtelSession | number | undefined> {
  const endpoint = otelEndpoint(flags.otel, io.env);
  if (!endpoint) return undefined;
  if ("error" in endpoint) {
    io.stderr(`${endpoint.error}\n`);
    return EXIT.invalid;
  }
  const metricsEndpoint = otelMetricsEndpoint(endpoint.url, flags.otel, io.env);
  if (metricsEndpoint && "error" in metricsEndpoint) {
    io.stderr(`${metricsEndpoint.error}\n`);
    return EXIT.invalid;
  }
  const { api, tracer, shutdown, tell, metricsAt } = await otelTracer(endpoint.url, io);
  if (metricsEndpoint) metricsAt(metricsEndpoint.url);
  const meter = metricsEndpoint ? await otelMeter(metricsEndpoint.url, io.env, tell) : undefined;
  // The listeners whose casts have not all ended: what shutdown closes (a long `serve` keeps few).
  const open = new Set<ReturnType<typeof eventSpans>>();
  const options = {
    name: setup.name,
    model: modelOf(setup.llmName),
    content: flags["otel-content"] === true,
    redact: setup.redact,
    metrics: meter?.metrics,
  };
  return {
    api,
    tracer,
    metrics: meter?.metrics,
    listener() {
      const spans = eventSpans(api, tracer, options);
      open.add(spans);
      return (e) => {
        spans.listener(e);
        if (e.type === "final" && spans.idle()) open.delete(spans);
      };
    },
    async shutdown(failure) {
      const errorType = failure === undefined ? undefined : errorTypeOf(failure);
      for (const spans of open) spans.end(errorType);
      await Promise.all([shutdown(), meter?.shutdown()]);
    },
  };
}

/** One listener calling both (either may be absent). */
export function bothListeners(
  a: EventListener | undefined,
  b: EventListener | undefined,
): EventListener | undefined {
  if (!a || !b) return a ?? b;
  return (e) => {
    a(e);
    b(e);
  };
}
