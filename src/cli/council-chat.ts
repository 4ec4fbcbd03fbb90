/**
 * `spell council FILE`: the brief's temporary chatbot (§6) — each line read is a query for
 * the council; `exit` quits, `trace on` / `trace off` toggle observability. A thin client: it
 * adapts to the engine (a toggle builds a new engine from the same configuration). Progress and
 * retry waits go to stderr; an interrupt (Ctrl-C) ends the running query, not the session.
 */
import { errorMessage } from "../core/errors.js";
import { Crucible, type EngineConfig } from "../spell/crucible.js";
import type { CouncilProgram } from "../spell/kinds/council.js";
import { completedLoopsText, councilProgress } from "./council-progress.js";
import { processingLine } from "./council-run.js";
import { EXIT, type CliIO } from "./io.js";
import { loadForCast, printWarnings } from "./load.js";

export interface CouncilChatFlags {
  loom?: string | undefined;
  /** `provider/model`: every LLM of the document (every role, every seat). */
  llm?: string | undefined;
}

/** Where interrupts (Ctrl-C) come from: a handler is registered only while a query runs. */
export interface Interrupts {
  on(handler: () => void): void;
  off(handler: () => void): void;
}

export async function councilChat(
  file: string,
  flags: CouncilChatFlags,
  io: CliIO,
  lines: AsyncIterable<string>,
  interrupts?: Interrupts,
): Promise<number> {
  const loaded = await loadForCast(file, flags, io);
  if (typeof loaded === "number") return loaded;
  const redact = (t: string) => loaded.redactor.redact(t);
  if (loaded.kind !== "council") {
    io.stderr(
      `${loaded.file}: spell council needs a kind: council document (this is ${loaded.kind})\n`,
    );
    return EXIT.invalid;
  }
  printWarnings(loaded, io);
  const program = loaded.value as CouncilProgram;
  const onEvent = councilProgress(io.stderr, redact);
  const engineWith = (change: Partial<EngineConfig>) => program.withConfig({ onEvent, ...change });
  let trace = program.config.observability ?? false;
  let engine = engineWith({});
  io.stdout("Crucible v1.0\nType 'exit' to quit, 'trace on/off' to toggle observability\n\n> ");
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === "exit") break;
    if (line === "trace on" || line === "trace off") {
      trace = line === "trace on";
      engine = engineWith({ observability: trace });
      io.stdout(`Observability ${trace ? "enabled" : "disabled"}.\n\n> `);
      continue;
    }
    if (line !== "") io.stdout(redact(await answer(engine, line, redact, interrupts)));
    io.stdout("> ");
  }
  io.stdout("\n");
  program.loom.close();
  return EXIT.ok;
}

/** One query's output, or its error (printed, and the loop goes on: §6.4). */
async function answer(
  engine: Crucible,
  query: string,
  redact: (text: string) => string,
  interrupts?: Interrupts,
): Promise<string> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  interrupts?.on(interrupt);
  try {
    const r = await engine.run(query, undefined, { signal: controller.signal });
    // The critique is the red team's text: redacted whole, then cut (a cut first could keep the
    // start of a secret, which the redaction of the printed answer would not know).
    const trace = (r.reasoningTrace ?? []).map((l) => {
      const critique = redact(l.redTeamCritique);
      return `Loop ${l.loopNumber}${l.deltaDetected ? "" : " (no change)"}: ${critique.slice(0, 100)}${critique.length > 100 ? "..." : ""}\n`;
    });
    return `\n${processingLine(r)}\n\n${trace.length ? trace.join("") + "\n" : ""}${r.finalResponse}\n\n`;
  } catch (err) {
    const loops = completedLoopsText(Crucible.completedLoops(err));
    if (controller.signal.aborted) return `\ninterrupted\n\n${loops ? loops + "\n" : ""}`;
    return `\nerror: ${errorMessage(err)}\n\n${loops ? loops + "\n" : ""}`;
  } finally {
    interrupts?.off(interrupt);
  }
}
