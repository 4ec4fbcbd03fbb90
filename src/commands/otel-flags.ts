import * as Flags from "@oclif/core/flags";

/** `--otel URL` and `--otel-content`, the same on every command that casts. */
export const otelFlags = {
  otel: Flags.string({
    description:
      "send OpenTelemetry GenAI spans over OTLP/HTTP to this collector (e.g. http://localhost:4318); default: OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT when set",
  }),
  "otel-content": Flags.boolean({
    description:
      "with --otel: also send utterances, gate arguments and results (redacted); off by default",
  }),
};
