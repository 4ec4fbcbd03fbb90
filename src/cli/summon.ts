/**
 * An interactive session with one summoned entity (`spell summon`; other commands build on
 * `runSummon`): every line read is an intent sent to the same entity (ENTITY-5), its result
 * printed on stdout and each turn's progress on stderr, as `spell run` does. Ctrl-C stops the
 * cast that is running, not the session; at an idle prompt a second Ctrl-C (or the end of the
 * input) ends it. With `--entity` the session continues an entity recorded in the loom, in this
 * process or another one (its turns back in the context, the code medium's variables by replay);
 * a spell that names its loom continues its only entity there unless `--new` (summon-target.ts).
 */
import type { Entity } from "../core/entity.js";
import { errorMessage, SpellbookError } from "../core/errors.js";
import { readEntityInto } from "../loom/core/index.js";
import type { Loom } from "../loom/core/index.js";
import { spellOf, type LoadedSpell } from "../spell/index.js";
import { EXIT, processIO, type CliIO } from "./io.js";
import { noteSpellEntity, resumeHint, summonTarget, type NamedLoom } from "./summon-target.js";
import { exitFor, loadForCast, printWarnings, type LoadFlags } from "./load.js";
import { progressLines } from "./progress.js";
import { printResult } from "./run.js";
import { liveDisplay } from "./stream-text.js";
import { cliApprover, type ApproverFlags } from "./approver.js";
import { otelSetup, startOtel, type OtelFlags } from "./otel/tracing.js";

export interface SummonFlags extends LoadFlags, ApproverFlags, OtelFlags {
  /** An entity recorded in the loom to continue; default a new one. */
  entity?: string | undefined;
  /** Continue the last entity of this spell in this loom (a new one when there is none). */
  continue?: boolean | undefined;
  /**
   * A new entity even when the spell names its loom and that loom holds one entity of this
   * spell (which `spell summon FILE` continues by default).
   */
  new?: boolean | undefined;
  /** No progress lines on stderr. */
  quiet?: boolean | undefined;
  /** Each result as a JSON line on stdout. */
  json?: boolean | undefined;
  /** The line mode even on a terminal (no full-screen UI). */
  plain?: boolean | undefined;
}

export interface SummonIO extends CliIO {
  /** Where the lines come from (stdin; a pipe works too). */
  input: NodeJS.ReadableStream;
  /** Where the prompt goes when the input is a terminal (readline then reads keys: Ctrl-C too). */
  terminal?: NodeJS.WritableStream;
  /** Ctrl-C that arrives as a signal (input from a pipe); returns the unsubscribe. */
  onInterrupt?: (handler: () => void) => () => void;
  /**
   * stdin and stdout when both are terminals: the session opens the full-screen UI there
   * (issue 42) unless --plain or --json.
   */
  screen?: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; stderr?: NodeJS.WriteStream };
}

export interface SummonHooks {
  /** Once the entity is held, before the first line (e.g. a greeting). */
  onStart?: (entity: Entity<Loom>, loaded: LoadedSpell, io: SummonIO) => void;
  /** How to continue the entity later, as printed; undefined: `spell summon FILE --entity ID`. */
  resumeHint?: (entityId: string) => string | undefined;
}

/** Runs the session to its end; returns the exit code (0 unless the session could not start). */
export async function runSummon(
  spellPath: string,
  flags: SummonFlags,
  io: SummonIO,
  hooks: SummonHooks = {},
): Promise<number> {
  if (flags.continue && flags.entity !== undefined) {
    io.stderr("--continue and --entity name the entity twice: give one of them\n");
    return EXIT.invalid;
  }
  if (flags.new && (flags.continue || flags.entity !== undefined)) {
    io.stderr(
      `--new starts a new entity: it cannot ${flags.continue ? "--continue" : "take --entity"} too\n`,
    );
    return EXIT.invalid;
  }
  if (flags.continue && flags.loom === "memory") {
    io.stderr("--continue needs a loom file: a memory loom keeps no entity between sessions\n");
    return EXIT.invalid;
  }
  const hint = (id: string, named: NamedLoom | undefined): string =>
    hooks.resumeHint?.(id) ?? resumeHint(spellPath, id, flags, named);
  const started = await startSummon(spellPath, flags, io, hint);
  if (typeof started === "number") return started;
  const { loaded, entity, named } = started;
  const loom = entity.cantrip.loom;
  const otel = await startOtel(flags, otelSetup(loaded), io);
  if (typeof otel === "number") {
    entity.dispose();
    loom.close();
    return otel;
  }
  const offOtel = otel ? entity.bus.on(otel.listener()) : undefined;
  hooks.onStart?.(entity, loaded, io);
  // Piped input (a script, CI): a send that failed fails the session's exit, as `spell run` would.
  let failure: unknown;
  let failed = false;
  try {
    if (io.screen && !flags.plain && !flags.json) {
      // The terminal UI's code (and Ink with it) loads only when a terminal opens it.
      const { screenSession } = await import("./summon-screen.js");
      await screenSession(entity, loaded, io.screen, io);
    } else
      await readIntents(io, async (line, signal) => {
        const err = await sendLine(entity, line, signal, loaded, flags, io);
        if (err !== undefined) [failed, failure] = [true, err];
      });
  } finally {
    offOtel?.();
    await otel?.shutdown(failure);
    entity.dispose();
    loom.close();
  }
  io.stderr(`session ended · entity ${entity.id} · resume: ${hint(entity.id, named)}\n`);
  return failed && !io.terminal ? exitFor(failure) : EXIT.ok;
}

/** Loads the spell and summons (or resumes) its entity; an exit code when that fails. */
async function startSummon(
  spellPath: string,
  flags: SummonFlags,
  io: SummonIO,
  hint: (entityId: string, named: NamedLoom | undefined) => string,
): Promise<{ loaded: LoadedSpell; entity: Entity<Loom>; named: NamedLoom | undefined } | number> {
  const doc = await loadForCast(spellPath, flags, io);
  if (typeof doc === "number") return doc;
  let loaded: LoadedSpell;
  try {
    loaded = spellOf(doc);
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return exitFor(err);
  }
  printWarnings(loaded, io);
  const cantrip = loaded.cantrip!;
  const loom = cantrip.loom;
  let inUseHint = "";
  try {
    const { id, named, picked } = await summonTarget(loaded, flags, io);
    inUseHint = picked ? " (--new summons a fresh entity)" : "";
    // Issue 25: questions go to the session's terminal prompt (readIntents sets io.question).
    const ask = io.terminal ? io : undefined;
    const onApproval = cliApprover(
      flags,
      ask &&
        ((text, signal, request) => ask.question?.(text, signal, request) ?? Promise.resolve(null)),
      (t) => loaded.redactor.redact(t),
    );
    // An entity recorded in a database by another process is read into the loom first.
    if (id !== undefined) await readEntityInto(loom, id);
    const entity = cantrip.summon({
      ...(id === undefined ? {} : { entity: id }),
      ...(onApproval ? { onApproval } : {}),
    });
    await entity.ready();
    await noteSpellEntity(loaded, entity.id);
    const earlier = id === undefined ? 0 : (loom.lastTurnOf(entity.id)?.sequence ?? 0);
    const where = `loom ${loom.store.location}`;
    io.stderr(
      id === undefined
        ? `summoned entity ${entity.id} · ${where} · resume: ${hint(entity.id, named)}\n`
        : `resumed entity ${entity.id} (${earlier} earlier turn${earlier === 1 ? "" : "s"}) · ${where}\n`,
    );
    return { loaded, entity, named };
  } catch (err) {
    // The spell's entity, picked by itself, is held by another session: say how to go on.
    const hint = err instanceof SpellbookError && err.code === "loom_in_use" ? inUseHint : "";
    io.stderr(loaded.redactor.redact(`spell summon: ${errorMessage(err)}${hint}\n`));
    loom.close();
    return exitFor(err);
  }
}

/**
 * One intent: progress on stderr, the result on stdout; a failure is told, the session goes on,
 * and its error is returned (undefined: the send did not fail).
 */
async function sendLine(
  entity: Entity<Loom>,
  intent: string,
  signal: AbortSignal,
  loaded: LoadedSpell,
  flags: SummonFlags,
  io: SummonIO,
): Promise<unknown> {
  const redact = (t: string): string => loaded.redactor.redact(t);
  const display =
    flags.quiet || flags.json
      ? undefined
      : liveDisplay(io.stderr, loaded.redactor, progressLines());
  const off = display ? entity.bus.on(display) : undefined;
  const location = entity.cantrip.loom.store.location;
  try {
    const result = await entity.send(intent, { signal });
    if (result.status === "failed") {
      // --json: a line for every send, a failed one's with its error (as spell run --json).
      if (flags.json) await printResult(result, location, flags, redact, io);
      io.stderr(redact(`send failed: ${errorMessage(result.error)}\n`));
      io.stderr(`the loom keeps every turn recorded before the failure (${location})\n`);
      return result.error;
    }
    await printResult(result, location, flags, redact, io);
    return undefined;
  } catch (err) {
    io.stderr(redact(`send failed: ${errorMessage(err)}\n`));
    return err;
  } finally {
    off?.();
  }
}

/**
 * Reads lines until the input ends or Ctrl-C is pressed twice at an idle prompt; each line that
 * is not blank goes to `send`, one at a time, with a signal that Ctrl-C aborts.
 */
async function readIntents(
  io: SummonIO,
  send: (line: string, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({
    input: io.input,
    ...(io.terminal ? { output: io.terminal, terminal: true } : { terminal: false }),
  });
  let running: AbortController | null = null;
  let idleInterrupts = 0;
  const prompt = () => io.terminal && rl.prompt();
  const interrupt = () => {
    if (running) {
      io.stderr("\ninterrupted: stopping the current cast (the session goes on)\n");
      running.abort("interrupted");
    } else if (++idleInterrupts >= 2) rl.close();
    else {
      io.stderr("\n(Ctrl-C again, or end the input, to end the session)\n");
      prompt();
    }
  };
  rl.on("SIGINT", interrupt); // a terminal: readline reads Ctrl-C as a key
  io.question = (text, signal) =>
    new Promise((resolve) => {
      const withdraw = () => resolve(null);
      signal.addEventListener("abort", withdraw, { once: true });
      rl.question(text, { signal }, (answer) => resolve(answer));
    });
  const unsubscribe = io.onInterrupt?.(interrupt);
  try {
    rl.setPrompt("› ");
    prompt();
    for await (const line of rl) {
      idleInterrupts = 0;
      const intent = line.trim();
      if (intent) {
        running = new AbortController();
        await send(intent, running.signal);
        running = null;
      }
      prompt();
    }
  } finally {
    unsubscribe?.();
    rl.close();
  }
}

/** Whether a CI variable is set (as Ink reads them: "0" and "false" are unset). */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  return ["CI", "CONTINUOUS_INTEGRATION"].some(
    (k) => env[k] !== undefined && env[k] !== "0" && env[k] !== "false",
  );
}

/**
 * The process's own streams for an interactive session (`spell summon`, `spell familiar`):
 * stdin, the terminal when there is one, and Ctrl-C signals, let go once `run` ends.
 */
export async function withProcessSummon(run: (io: SummonIO) => Promise<number>): Promise<number> {
  const listeners = new Set<() => void>();
  const onSigint = () => listeners.forEach((l) => l());
  process.on("SIGINT", onSigint);
  try {
    return await run({
      ...processIO(),
      input: process.stdin,
      ...(process.stdin.isTTY ? { terminal: process.stderr } : {}),
      // Under CI (CI or CONTINUOUS_INTEGRATION set), Ink draws only the last frame: line mode.
      ...(process.stdin.isTTY && process.stdout.isTTY && !inCi(process.env)
        ? { screen: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr } }
        : {}),
      onInterrupt: (handler) => {
        listeners.add(handler);
        return () => listeners.delete(handler);
      },
    });
  } finally {
    process.off("SIGINT", onSigint);
  }
}
