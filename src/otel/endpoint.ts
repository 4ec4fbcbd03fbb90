/**
 * Where spans go: `--otel URL`, else the environment as the OpenTelemetry ecosystem reads it —
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT used as written, OTEL_EXPORTER_OTLP_ENDPOINT as a base
 * that gains `/v1/traces`. Off (undefined) when none is given. The GenAI metrics follow
 * (`otelMetricsEndpoint`).
 */
export const TRACES_PATH = "/v1/traces";
export const METRICS_PATH = "/v1/metrics";

export type Endpoint = { url: string } | { error: string } | undefined;

/**
 * The collector as messages name it: scheme, host, port and path, never a user, password or
 * query — a collector's token may be any of them (`https://TOKEN@host`, `?api_key=…`).
 */
export function shownEndpoint(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, "$1").replace(/[?#][\s\S]*$/, "");
  }
}

export function otelEndpoint(flag: string | undefined, env: NodeJS.ProcessEnv): Endpoint {
  if (flag !== undefined) return checked(flag, "--otel", true);
  const traces = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"];
  if (traces) return checked(traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", false);
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (base) return checked(base, "OTEL_EXPORTER_OTLP_ENDPOINT", true);
  return undefined;
}

/** An http(s) URL, as written. */
function checkedUrl(text: string, where: string): { url: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `${where} ${shownEndpoint(text)}: not a URL (e.g. http://localhost:4318)` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { error: `${where} ${shownEndpoint(text)}: OTLP/HTTP needs an http:// or https:// URL` };
  return { url: url.href };
}

/** A base URL (no path, or a path not ending in /v1/traces) gains /v1/traces when `base`. */
function checked(text: string, where: string, base: boolean): Endpoint {
  const found = checkedUrl(text, where);
  if ("error" in found) return found;
  const url = new URL(found.url);
  if (base && !url.pathname.endsWith(TRACES_PATH))
    url.pathname = url.pathname.replace(/\/$/, "") + TRACES_PATH;
  return { url: url.href };
}

/**
 * Where the GenAI metrics go, once spans go to `traces` (a checked URL): `--otel`'s collector
 * (its /v1/traces turned into /v1/metrics), else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT as written,
 * else OTEL_EXPORTER_OTLP_ENDPOINT gaining /v1/metrics, else the traces variable's URL with its
 * /v1/traces turned into /v1/metrics; a traces URL of another path says nothing of metrics: off
 * (undefined). A metrics URL that is not http(s) is an error, as the traces' one is.
 */
export function otelMetricsEndpoint(
  traces: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): Endpoint {
  const metrics = env["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];
  if (flag === undefined && metrics)
    return checkedUrl(metrics, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (flag === undefined && base) {
    const found = checkedUrl(base, "OTEL_EXPORTER_OTLP_ENDPOINT");
    if ("error" in found) return found;
    const url = new URL(found.url);
    url.pathname = url.pathname.replace(/\/$/, "").replace(/\/v1\/traces$/, "") + METRICS_PATH;
    return { url: url.href };
  }
  const url = new URL(traces);
  if (!url.pathname.endsWith(TRACES_PATH)) return undefined;
  url.pathname = url.pathname.slice(0, -TRACES_PATH.length) + METRICS_PATH;
  return { url: url.href };
}
