/**
 * `spell loom otel FILE|URL --to URL`: a recorded loom sent as the spans `--otel` sends live, then
 * flushed. Content only with `--otel-content`, redacted as `loom export` redacts (the common
 * secret shapes and every provider key set in the environment).
 */
import { errorMessage } from "../../core/errors.js";
import { shownLoom } from "../../loom/open/index.js";
import { eachRecord } from "../../loom/stores/index.js";
import type { LoomRecord } from "../../loom/records/index.js";
import { EXIT, type CliIO } from "../io.js";
import { openLoomArg } from "../loom-export.js";
import { otelEndpoint, shownEndpoint } from "../../otel/endpoint.js";
import { loomSpans } from "../../otel/loom-spans.js";
import { otelTracer } from "./tracing.js";

export interface LoomOtelFlags {
  /** The collector (default: OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT). */
  to?: string | undefined;
  "otel-content"?: boolean | undefined;
  /** The root agents' name; default the loom file's name (a database's). */
  name?: string | undefined;
}

export async function loomOtelCommand(
  file: string,
  flags: LoomOtelFlags,
  io: CliIO,
): Promise<number> {
  const opened = openLoomArg(file, io);
  if (typeof opened === "number") return opened;
  const { store, redactor } = opened;
  const endpoint = otelEndpoint(flags.to, io.env);
  if (!endpoint || "error" in endpoint) {
    await store.close();
    io.stderr(
      `${endpoint?.error.replace(/^--otel/, "--to") ?? "no collector: give --to URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)"}\n`,
    );
    return EXIT.invalid;
  }
  try {
    const records: LoomRecord[] = [];
    const pages = store.recordPages(0, { onTorn: (message) => io.stderr(`${message}\n`) });
    for await (const record of eachRecord(pages)) records.push(record);
    await store.close();
    const { api, tracer, shutdown, failed } = await otelTracer(endpoint.url, io);
    // A database's name is the last part of its URL, without the URL's options.
    const named = store.file === undefined ? shownLoom(file).replace(/[?#].*$/, "") : file;
    const name = flags.name ?? named.replace(/^.*\//, "").replace(/\.jsonl$/, "");
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
  } finally {
    await store.close();
  }
}
