/**
 * A loopback OTLP/HTTP receiver: a node:http server on 127.0.0.1 collecting what POST
 * /v1/traces receives, decoded with JSON.parse (the JS exporter sends JSON by default).
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

export interface Receiver {
  url: string;
  bodies: string[];
  spans(): OtlpSpan[];
  close(): Promise<void>;
}

export async function otlpReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces")
        bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
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

/** A span attribute's value, whatever its OTLP type. */
export function attr(span: OtlpSpan, key: string): unknown {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if ("arrayValue" in v)
    return ((v["arrayValue"] as { values?: Record<string, unknown>[] }).values ?? []).map(
      (x) => Object.values(x)[0],
    );
  const raw = Object.values(v)[0];
  return "intValue" in v ? Number(raw) : raw;
}
