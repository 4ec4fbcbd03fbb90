/**
 * `spell loom otel FILE --to URL`: a recorded loom sent as the spans `--otel` sends live, then
 * flushed. Content only with `--otel-content`, redacted as `loom export` redacts (the common
 * secret shapes and every provider key set in the environment).
 */
import { existsSync } from "node:fs";
import { errorMessage } from "../../core/errors.js";
import { Redactor } from "../../core/redact.js";
import { KEY_ENV_VARS } from "../../llm/providers/profiles.js";
import { readLoomFile, tornMessage } from "../../loom/jsonl-read.js";
import { displayPath, EXIT, type CliIO } from "../io.js";
import { otelEndpoint, shownEndpoint } from "../../otel/endpoint.js";
import { loomSpans } from "../../otel/loom-spans.js";
import { otelTracer } from "./tracing.js";

export interface LoomOtelFlags {
  /** The collector (default: OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT). */
  to?: string | undefined;
  "otel-content"?: boolean | undefined;
  /** The root agents' name; default the loom file's name. */
  name?: string | undefined;
}

export async function loomOtelCommand(
  file: string,
  flags: LoomOtelFlags,
  io: CliIO,
): Promise<number> {
  const path = displayPath(io.cwd, file);
  if (!existsSync(path)) {
    io.stderr(`${path}: no such loom file\n`);
    return EXIT.invalid;
  }
  const endpoint = otelEndpoint(flags.to, io.env);
  if (!endpoint || "error" in endpoint) {
    io.stderr(
      `${endpoint?.error.replace(/^--otel/, "--to") ?? "no collector: give --to URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)"}\n`,
    );
    return EXIT.invalid;
  }
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(io.env[name]);
  try {
    const { records, torn } = readLoomFile(path);
    for (const piece of torn) io.stderr(`${tornMessage(path, piece)}\n`);
    const { api, tracer, shutdown, failed } = await otelTracer(endpoint.url, io);
    const name = flags.name ?? file.replace(/^.*\//, "").replace(/\.jsonl$/, "");
    const content = flags["otel-content"] === true;
    const entities = loomSpans(api, tracer, records, {
      name,
      content,
      redact: (t) => redactor.redact(t),
    });
    await shutdown();
    // Sending is all this command does: a collector that took nothing fails it (said above).
    if (failed()) return EXIT.failure;
    io.stderr(
      `sent ${entities} entit${entities === 1 ? "y" : "ies"} to ${shownEndpoint(endpoint.url)}\n`,
    );
    return EXIT.ok;
  } catch (err) {
    io.stderr(redactor.redact(`${errorMessage(err)}\n`));
    return EXIT.failure;
  }
}
