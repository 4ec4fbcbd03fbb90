/**
 * Where spans go: `--otel URL`, else the environment as the OpenTelemetry ecosystem reads it —
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT used as written, OTEL_EXPORTER_OTLP_ENDPOINT as a base
 * that gains `/v1/traces`. Off (undefined) when none is given.
 */
export const TRACES_PATH = "/v1/traces";

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

/** A base URL (no path, or a path not ending in /v1/traces) gains /v1/traces when `base`. */
function checked(text: string, where: string, base: boolean): Endpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `${where} ${shownEndpoint(text)}: not a URL (e.g. http://localhost:4318)` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { error: `${where} ${shownEndpoint(text)}: OTLP/HTTP needs an http:// or https:// URL` };
  if (base && !url.pathname.endsWith(TRACES_PATH))
    url.pathname = url.pathname.replace(/\/$/, "") + TRACES_PATH;
  return { url: url.href };
}
