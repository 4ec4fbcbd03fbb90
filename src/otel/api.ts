import type * as OtelApiModule from "@opentelemetry/api";

/** The OpenTelemetry API's runtime face, passed around once it is imported (on first use). */
export type OtelApi = typeof OtelApiModule;
