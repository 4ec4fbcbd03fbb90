/**
 * `spell council FILE`: the brief's temporary chatbot (§6) — each line read is a query for
 * the council; `exit` quits, `trace on` / `trace off` toggle observability. A thin client: it
 * adapts to the engine (a toggle builds a new engine from the same configuration).
 */
import { errorMessage, SpellbookError } from "../core/errors.js";
import type { Crucible } from "../council/index.js";
import { loadDocument } from "../spell/index.js";
import type { CouncilProgram } from "../spell/kinds/council.js";
import { processingLine } from "./council-run.js";
import { displayPath, EXIT, type CliIO } from "./io.js";

export interface CouncilChatFlags {
  loom?: string | undefined;
}

export async function councilChat(
  file: string,
  flags: CouncilChatFlags,
  io: CliIO,
  lines: AsyncIterable<string>,
): Promise<number> {
  let program: CouncilProgram;
  let redact = (t: string) => t;
  try {
    const loaded = await loadDocument(displayPath(io.cwd, file), {
      env: io.env,
      loomPath: flags.loom,
      defaultLoomPath: ".spellbook/loom.jsonl",
    });
    redact = (t) => loaded.redactor.redact(t);
    if (loaded.kind !== "council") {
      io.stderr(
        `${loaded.file}: spell council needs a kind: council document (this is ${loaded.kind})\n`,
      );
      return EXIT.invalid;
    }
    program = loaded.value as CouncilProgram;
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return err instanceof SpellbookError && err.family === "spell" ? EXIT.invalid : EXIT.failure;
  }
  let trace = program.config.observability ?? false;
  let engine: Crucible = program.engine;
  io.stdout("Crucible v1.0\nType 'exit' to quit, 'trace on/off' to toggle observability\n\n> ");
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === "exit") break;
    if (line === "trace on" || line === "trace off") {
      trace = line === "trace on";
      engine = program.withConfig({ observability: trace });
      io.stdout(`Observability ${trace ? "enabled" : "disabled"}.\n\n> `);
      continue;
    }
    if (line !== "") io.stdout(redact(await answer(engine, line)));
    io.stdout("> ");
  }
  io.stdout("\n");
  program.loom.close();
  return EXIT.ok;
}

/** One query's output, or its error (printed, and the loop goes on: §6.4). */
async function answer(engine: Crucible, query: string): Promise<string> {
  try {
    const r = await engine.run(query);
    const trace = (r.reasoningTrace ?? []).map(
      (l) =>
        `Loop ${l.loopNumber}${l.deltaDetected ? "" : " (no change)"}: ${l.redTeamCritique.slice(0, 100)}${l.redTeamCritique.length > 100 ? "..." : ""}\n`,
    );
    return `\n${processingLine(r)}\n\n${trace.length ? trace.join("") + "\n" : ""}${r.finalResponse}\n\n`;
  } catch (err) {
    return `\nerror: ${errorMessage(err)}\n\n`;
  }
}
