/**
 * `spell run council.yaml`: runs the council on --intent (or the document's intent:) and prints
 * the ExecutorResult — the final response on stdout, or with --json the whole result in its
 * snake_case wire form (schemas/executor-result.schema.json).
 */
import { errorMessage, SpellbookError } from "../core/errors.js";
import { redactedJson } from "../core/redact-stream.js";
import { Crucible, type ExecutorResult } from "../spell/crucible.js";
import type { LoadedDocument } from "../spell/index.js";
import type { CouncilProgram } from "../spell/kinds/council.js";
import { completedLoopsJson, completedLoopsText, councilProgress } from "./council-progress.js";
import { EXIT, print, type CliIO } from "./io.js";
import type { RunFlags } from "./run-flags.js";

/** The ExecutorResult as JSON (snake_case, the brief's field names). */
export function executorResultJson(r: ExecutorResult) {
  return {
    final_response: r.finalResponse,
    loops_executed: r.loopsExecuted,
    early_exit: r.earlyExit,
    reasoning_trace:
      r.reasoningTrace?.map((l) => ({
        loop_number: l.loopNumber,
        council_responses: { ...l.councilResponses },
        red_team_critique: l.redTeamCritique,
        delta_detected: l.deltaDetected,
      })) ?? null,
  };
}

/** `[Processing... N loops executed]`, or `short-circuited` when no loop ran (brief §6.3). */
export function processingLine(r: ExecutorResult): string {
  const what =
    r.loopsExecuted === 0
      ? "short-circuited"
      : `${r.loopsExecuted} loop${r.loopsExecuted === 1 ? "" : "s"} executed`;
  return `[Processing... ${what}]`;
}

export async function runCouncil(
  loaded: LoadedDocument,
  flags: RunFlags,
  io: CliIO,
): Promise<number> {
  const program = loaded.value as CouncilProgram;
  const redact = (t: string) => loaded.redactor.redact(t);
  for (const w of loaded.warnings)
    io.stderr(
      redact(`${w.position.file}:${w.position.line}:${w.position.col}: warning: ${w.message}\n`),
    );
  const query = flags.intent ?? program.intent;
  if (!query) {
    io.stderr(`${loaded.file}: no intent: give --intent "..." or write intent: in the document\n`);
    return EXIT.invalid;
  }
  // Progress per call on stderr (not with --quiet or --json); warnings always.
  const progress = councilProgress(io.stderr, redact);
  const quiet = flags.quiet || flags.json;
  const engine = program.withConfig({
    onEvent: (e) => (!quiet || e.type === "warning" ? progress(e) : undefined),
  });
  let result: ExecutorResult;
  try {
    result = await engine.run(query);
  } catch (err) {
    io.stderr(redact(`spell run failed: ${errorMessage(err)}\n`));
    program.loom.close();
    printCompleted(err, flags.json ?? false, io, redact);
    return err instanceof SpellbookError && err.family === "spell" ? EXIT.invalid : EXIT.failure;
  }
  program.loom.close();
  if (flags.json) {
    await print(io, redactedJson(executorResultJson(result), redact) + "\n");
    return EXIT.ok;
  }
  await print(io, redact(result.finalResponse) + "\n");
  if (!flags.quiet) {
    const early = result.earlyExit && result.loopsExecuted > 0 ? " · early exit" : "";
    io.stderr(`${processingLine(result)}${early} · loom ${program.loom.store.location}\n`);
  }
  return EXIT.ok;
}

/** A failed run's completed loops on stdout (with --json: the error and the loops as JSON). */
function printCompleted(err: unknown, json: boolean, io: CliIO, redact: (t: string) => string) {
  const loops = Crucible.completedLoops(err);
  if (json) {
    const code = err instanceof SpellbookError ? err.code : "error";
    const error = { code, message: errorMessage(err) };
    io.stdout(redactedJson({ error, completed_loops: completedLoopsJson(loops) }, redact) + "\n");
  } else if (loops.length) io.stdout(redact(completedLoopsText(loops)));
}
