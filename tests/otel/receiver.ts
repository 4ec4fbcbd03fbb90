/**
 * A loopback OTLP/HTTP receiver: a node:http server on 127.0.0.1 collecting what POST
 * /v1/traces and POST /v1/metrics receive, decoded with JSON.parse (the JS exporters send JSON
 * by default).
 */
import { createServer, type Server } from "node:http";

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number; message?: string };
}

/** One data point of an OTLP histogram. */
export interface OtlpHistogramPoint {
  attributes?: { key: string; value: Record<string, unknown> }[];
  count: number | string;
  sum?: number;
  bucketCounts?: (number | string)[];
  explicitBounds?: number[];
}

export interface OtlpMetric {
  name: string;
  unit?: string;
  description?: string;
  histogram?: { dataPoints: OtlpHistogramPoint[]; aggregationTemporality?: number };
}

export interface Receiver {
  url: string;
  bodies: string[];
  /** The bodies POSTed to /v1/metrics. */
  metricBodies: string[];
  spans(): OtlpSpan[];
  metrics(): OtlpMetric[];
  close(): Promise<void>;
}

export async function otlpReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const metricBodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces")
        bodies.push(Buffer.concat(chunks).toString("utf8"));
      if (req.method === "POST" && req.url === "/v1/metrics")
        metricBodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    metricBodies,
    metrics: () =>
      metricBodies.flatMap((b) =>
        (
          JSON.parse(b) as { resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[] }
        ).resourceMetrics
          .flatMap((r) => r.scopeMetrics)
          .flatMap((s) => s.metrics),
      ),
    spans: () =>
      bodies.flatMap((b) =>
        (
          JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }
        ).resourceSpans
          .flatMap((r) => r.scopeSpans)
          .flatMap((s) => s.spans),
      ),
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** A span's (or a data point's) attribute value, whatever its OTLP type. */
export function attr(span: Pick<OtlpSpan, "attributes">, key: string): unknown {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if ("arrayValue" in v)
    return ((v["arrayValue"] as { values?: Record<string, unknown>[] }).values ?? []).map(
      (x) => Object.values(x)[0],
    );
  const raw = Object.values(v)[0];
  return "intValue" in v ? Number(raw) : raw;
}
