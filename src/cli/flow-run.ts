/**
 * `spell flow FILE`: runs a `kind: flow` document on messages (JSONL, one payload a line) from
 * --in or stdin, one cycle each, and prints the emitted payloads as JSONL — or, with --trace, the
 * normalized conformance trace of each cycle (seed 003 §8). Output is redacted.
 */
import { createReadStream } from "node:fs";
import { ConfigError, errorMessage, SpellErrors } from "../core/errors.js";
import { redactedJson } from "../core/redact-stream.js";
import type { LoadedDocument } from "../spell/index.js";
import type { CompiledFlow } from "../spell/kinds/flow-kind.js";
import { EXIT, displayPath, print as printText, type CliIO } from "./io.js";

export interface FlowFlags {
  /** JSONL file of inbound payloads; default stdin. */
  in?: string | undefined;
  /** Print the trace of each cycle instead of the emitted payloads. */
  trace?: boolean | undefined;
  /** Loom of the casts ("memory" for none); default each cast spell's loom.path, else the CLI's. */
  loom?: string | undefined;
}

/** Loads a flow document; prints its errors and returns undefined when it cannot. */
export async function loadFlow(file: string, io: CliIO, extra: object = {}) {
  const { loadDocument } = await import("../spell/index.js");
  try {
    const loaded = await loadDocument(displayPath(io.cwd, file), {
      env: io.env,
      loomPath: "memory",
      ...extra,
    });
    if (loaded.kind !== "flow") {
      const at = loaded.source.position(["kind"]);
      throw new SpellErrors([
        new ConfigError("not_a_flow", `this is a kind: ${loaded.kind} document, not a flow`, at),
      ]);
    }
    return loaded;
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return undefined;
  }
}

export async function flowCommand(
  file: string,
  flags: FlowFlags,
  io: CliIO,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  const loaded = await loadFlow(file, io, flags.loom ? { loomPath: flags.loom } : {});
  if (!loaded) return EXIT.invalid;
  const input = flags.in ? createReadStream(displayPath(io.cwd, flags.in), "utf8") : stdin;
  return runFlowLines(loaded, input, flags, io);
}

/** One cycle per non-empty line; a line that is not JSON is reported and skipped (exit 3). */
export async function runFlowLines(
  loaded: LoadedDocument,
  input: NodeJS.ReadableStream,
  flags: FlowFlags,
  io: CliIO,
): Promise<number> {
  const { FlowRunner } = await import("../flows/index.js");
  const compiled = loaded.value as CompiledFlow;
  const runner = new FlowRunner(compiled.flow);
  // Each answer waits for stdout to take it (back-pressure) before the next line is read.
  const print = (value: unknown) =>
    printText(io, redactedJson(value, (t) => loaded.redactor.redact(t)) + "\n");
  let bad = 0;
  let n = 0;
  try {
    const { createInterface } = await import("node:readline");
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      n++;
      if (!line.trim()) continue;
      let payload: unknown;
      try {
        payload = JSON.parse(line);
      } catch (err) {
        bad++;
        io.stderr(`input line ${n}: not JSON (${(err as Error).message}); skipped\n`);
        continue;
      }
      const { emitted, trace } = await runner.cycle(payload);
      if (flags.trace) await print({ message: n, dropped: trace.dropped, ...trace });
      else for (const e of emitted) await print(e.payload);
    }
  } catch (err) {
    io.stderr(`${loaded.redactor.redact(errorMessage(err))}\n`);
    return EXIT.failure;
  } finally {
    compiled.dispose();
  }
  return bad ? EXIT.invalid : EXIT.ok;
}
