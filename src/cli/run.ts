import { relative } from "node:path";
import type { CastFailed, CastResult } from "../core/result.js";
import type { Cantrip } from "../core/cantrip.js";
import type { Loom } from "../loom/core/index.js";
import { errorMessage } from "../core/errors.js";
import { redactedJson, redactedText } from "../core/redact-stream.js";
import { ScriptedLLM } from "../llm/providers/scripted.js";
import { unpriced } from "../llm/priced.js";
import { spellOf, type LoadedDocument, type LoadedSpell } from "../spell/index.js";
import { EXIT, print, type CliIO } from "./io.js";
import { liveDisplay } from "./stream-text.js";
import { progressLines } from "./progress.js";
import { kindRunners } from "./kind-runners.js";
import { resultJson } from "../protocols/result-json.js";
import type { RunFlags } from "./run-flags.js";
import { bothListeners, otelSetup, startOtel } from "./otel/tracing.js";

import { exitFor, loadForCast, printWarnings } from "./load.js";
import { runIntent } from "./run-inputs.js";
import { ownEntry } from "../core/own.js";
import { formatUsd } from "../core/spend.js";
import { cliApprover } from "./approver.js";
import {
  continueScript,
  resumeAdvice,
  resumeCommand,
  runTarget,
  type RunTarget,
} from "./run-resume.js";

export type { RunFlags } from "./run-flags.js";
export { DEFAULT_LOOM } from "./load.js";

/**
 * Flags that do not go together, said in a line (a usage error), or undefined. Checked here, not
 * by oclif's dependsOn: a flag with one leaves spell run's fast start path (start.ts).
 */
function flagClash(flags: RunFlags): string | undefined {
  if (flags.queue !== undefined && flags.repeat === undefined)
    return "--queue goes with --repeat K: it puts the K casts on the queue";
  if (flags.repeat !== undefined && flags.resume !== undefined)
    return "--repeat and --resume do not go together: --resume continues one cast";
  return undefined;
}

/** Says why the flags cannot be run; the exit code of a bad invocation. */
function refused(io: CliIO, why: string): number {
  io.stderr(`${why}\n`);
  return EXIT.invalid;
}

/** `spell run FILE`: progress per turn on stderr, the result on stdout. Returns the exit code. */
export async function runCommand(file: string, flags: RunFlags, io: CliIO): Promise<number> {
  const loaded = await loadForRun(file, flags, io);
  if (typeof loaded === "number") return loaded;
  // A spell run by reference is its cached file from here on (open-spell.ts).
  if (file.startsWith("oci://")) file = loaded.file;
  const redact = (t: string): string => loaded.redactor.redact(t);
  printWarnings(loaded, io);
  const cantrip = loaded.cantrip!;
  const clash = flagClash(flags);
  if (clash) return refused(io, clash);
  let target: RunTarget | undefined;
  try {
    target = flags.repeat === undefined ? runTarget(file, flags.resume, cantrip.loom) : undefined;
  } catch (err) {
    io.stderr(redact(`${errorMessage(err)}\n`));
    cantrip.loom.close();
    return exitFor(err);
  }
  continueScript(cantrip.llm, target);
  const intent = target?.intent ?? (await runIntent(loaded, flags, io));
  if (typeof intent === "number") return intent;
  if (flags.repeat !== undefined) {
    cantrip.loom.close(); // the repeated casts go to the report folder's loom
    // Loaded only for --repeat: eval's runner brings the checks (ajv, RE2) a plain run never uses.
    const { repeatRun } = await import("./run-repeat.js");
    const how = { tty: io.tty === true, resolveRemote: loaded.remote };
    return repeatRun(file, intent, { ...flags, repeat: flags.repeat }, io, how);
  }
  const resume = (r?: CastResult) => resumeCommand(file, flags.loom, target, r);
  const progress =
    flags.quiet || flags.json
      ? undefined
      : liveDisplay(io.stderr, loaded.redactor, progressLines());
  const otel = await startOtel(flags, otelSetup(loaded), io);
  if (typeof otel === "number") return otel;
  const onEvent = bothListeners(progress, otel?.listener());
  let result: CastResult<Loom>;
  try {
    const onApproval = cliApprover(flags, io.question, redact);
    result = await cantrip.cast(intent, {
      ...(onApproval ? { onApproval } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      ...(onEvent ? { onEvent } : {}),
      ...(target ? { resumeEntity: target.entityId } : {}),
    });
  } catch (err) {
    await otel?.shutdown(err);
    return castFailed(err, cantrip, redact, io, resume());
  }
  await otel?.shutdown(result.status === "failed" ? result.error : undefined);
  if (result.status === "failed")
    return failedResult(result, cantrip, flags, redact, io, resume(result));
  cantrip.loom.close();
  warnUnused(cantrip, result, io);
  const again = resume(result);
  await printResult(result, cantrip.loom.store.location, flags, redact, io, again);
  if (again) io.stderr(`resume with: ${again}\n`);
  return result.terminated ? EXIT.ok : EXIT.truncated;
}

/**
 * Loads the document: a cantrip comes back to be cast; a document of another kind is run by
 * its kind's runner. Returns an exit code when there is nothing left to cast (run, or failed to load).
 */
async function loadForRun(file: string, flags: RunFlags, io: CliIO): Promise<LoadedSpell | number> {
  const doc = await loadForCast(file, flags, io);
  if (typeof doc === "number") return doc;
  try {
    if (doc.kind !== "cantrip") return await runKind(doc, flags, io);
    return spellOf(doc);
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return exitFor(err);
  }
}

/** A cast that ended failed: its JSON object with --json (as any ending has), then castFailed. */
async function failedResult(
  result: CastFailed<Loom>,
  cantrip: Cantrip<Loom>,
  flags: RunFlags,
  redact: (t: string) => string,
  io: CliIO,
  again?: string,
): Promise<number> {
  if (flags.json) await printResult(result, cantrip.loom.store.location, flags, redact, io, again);
  return castFailed(result.error, cantrip, redact, io, again);
}

/** Scripted replies a terminated cast left: only a cast that asked for replies can leave some. */
function warnUnused(cantrip: Cantrip<Loom>, result: CastResult<Loom>, io: CliIO): void {
  const llm = unpriced(cantrip.llm);
  if (llm instanceof ScriptedLLM && result.terminated && llm.queries > 0 && llm.unused() > 0)
    io.stderr(`warning: the scripted llm has ${llm.unused()} response(s) left unused\n`);
}

/** A cast that failed: the error, where the turns before it are kept; closes the loom. */
function castFailed(
  err: unknown,
  cantrip: Cantrip<Loom>,
  redact: (t: string) => string,
  io: CliIO,
  again?: string,
): number {
  io.stderr(redact(`spell run failed: ${errorMessage(err)}\n`));
  io.stderr(
    redact(
      `the loom keeps every turn recorded before the failure (${cantrip.loom.store.location})\n`,
    ),
  );
  if (again) io.stderr(`${resumeAdvice(err)}: ${again}\n`);
  cantrip.loom.close();
  return exitFor(err);
}

/**
 * The result on stdout (as JSON with --json), the summary line on stderr unless --quiet.
 * Resolves once stdout has taken the result (a slow reader of a big result).
 */
export async function printResult(
  result: CastResult<Loom>,
  location: string,
  flags: Pick<RunFlags, "json" | "quiet">,
  redact: (t: string) => string,
  io: CliIO,
  resume?: string,
): Promise<void> {
  if (flags.json) {
    const json = { ...resultJson(result, location), ...(resume ? { resume } : {}) };
    await print(io, redactedJson(json, redact) + "\n");
  } else {
    await print(io, redactedText(result.result, redact, 2) + "\n");
    if (!flags.quiet) io.stderr(redact(summaryLine(result, location)));
  }
}

async function runKind(doc: LoadedDocument, flags: RunFlags, io: CliIO): Promise<number> {
  const run = ownEntry(kindRunners, doc.kind);
  if (run) return run(doc, flags, io);
  io.stderr(`${doc.file}: spell run does not run a kind: ${doc.kind} document\n`);
  return EXIT.invalid;
}

/** The line that ends a cast on stderr: how it ended, its cost, the entity and the loom. */
export function summaryLine(r: CastResult, location: string): string {
  const loom = location.startsWith("/") ? relative(process.cwd(), location) || location : location;
  const how = r.terminated ? `terminated (${r.reason})` : `truncated (${r.reason})`;
  const u = r.usage;
  const cost = u.costUsd === undefined ? "cost unknown" : formatUsd(u.costUsd);
  return `${how} after ${r.turns} turn${r.turns === 1 ? "" : "s"} · ${u.totalTokens} tokens (${u.promptTokens} in, ${u.completionTokens} out, ${u.cachedTokens} cached) · ${cost} · entity ${r.entityId} · loom ${loom}\n`;
}
