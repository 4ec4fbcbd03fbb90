import { errorMessage, SpellbookError } from "../core/errors.js";
import type { Cantrip } from "../core/cantrip.js";
import type { Loom } from "../loom/core/index.js";
import type { LLM } from "../core/contract.js";
import { PricedLLM } from "../llm/priced.js";
import { loadSpell, type LoadedSpell, type LoadOptions } from "../spell/index.js";
import { DEFAULT_LOOM } from "./run.js";
import { displayPath, EXIT, type CliIO } from "./io.js";

export interface AcpFlags {
  loom?: string | undefined;
  /** Validate the spell and its provider setup, say so, and exit. */
  check?: boolean | undefined;
  /** Log every protocol message on stderr. */
  debug?: boolean | undefined;
}

export interface AcpStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Resolves when the agent is to stop (SIGTERM, SIGINT). */
  stop: Promise<unknown>;
}

/**
 * `spell acp FILE`: the spell as an ACP agent on stdio until the client closes stdin. Waiting
 * for requests is its normal state: it says so on stderr once and stays quiet (PROD-9).
 */
export async function acpCommand(
  file: string,
  flags: AcpFlags,
  io: CliIO,
  streams: AcpStreams,
): Promise<number> {
  const path = displayPath(io.cwd, file);
  const base: LoadOptions = { env: io.env, loomPath: flags.loom, defaultLoomPath: DEFAULT_LOOM };
  let loaded: LoadedSpell;
  try {
    loaded = await loadSpell(path, base);
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return err instanceof SpellbookError && err.family === "spell" ? EXIT.invalid : EXIT.failure;
  }
  const redact = (t: string) => loaded.redactor.redact(t);
  for (const w of loaded.warnings)
    io.stderr(
      redact(`${w.position.file}:${w.position.line}:${w.position.col}: warning: ${w.message}\n`),
    );
  const cantrip = loaded.cantrip!;
  if (flags.check) {
    io.stderr(redact(checkLine(loaded, cantrip)));
    cantrip.loom.close();
    return EXIT.ok;
  }
  const { serveAcpStdio } = await import("../protocols/acp/stdio.js");
  io.stderr(
    redact(
      `spell acp: ${loaded.name} is waiting for an ACP client on stdin (idle until one writes; close stdin to stop)\n`,
    ),
  );
  await serveAcpStdio(
    {
      name: loaded.name,
      cantripFor: sessionCantrips(loaded, path, base),
      redactor: loaded.redactor,
      contextWindow: contextWindowOf(loaded),
    },
    { ...streams, log: (line) => io.stderr(`${line}\n`), debug: flags.debug === true },
  );
  cantrip.loom.close();
  return EXIT.ok;
}

/** What `--check` found: the spell loads, its provider is set up, where turns go. */
function checkLine(loaded: LoadedSpell, cantrip: Cantrip<Loom>): string {
  const gates = cantrip.presentation.tools.map((t) => t.name).join(", ") || "none";
  return (
    `spell acp --check: ${loaded.name} is ready — llm ${llmName(cantrip.llm)}, ` +
    `medium ${cantrip.circle.mediumName}, gates ${gates}, loom ${cantrip.loom.store.location}\n`
  );
}

/** The LLM as the spell names it (provider/model), else its class (one built in code). */
function llmName(llm: LLM): string {
  if (!(llm instanceof PricedLLM)) return llm.constructor.name;
  return llm.model ? `${llm.provider}/${llm.model}` : llm.provider;
}

/**
 * The cantrip of a session with this working directory. File gates' relative roots resolve in
 * the session's cwd, so a spell with rooted gates is loaded once per cwd (into the same loom);
 * the cantrip loaded at start serves its own folder and every spell without such gates.
 */
function sessionCantrips(loaded: LoadedSpell, path: string, base: LoadOptions) {
  const cantrip = loaded.cantrip!;
  const byCwd = new Map<string, Promise<Cantrip<Loom>>>();
  return (cwd: string): Promise<Cantrip<Loom>> => {
    if (!usesRoots(loaded)) return Promise.resolve(cantrip);
    let found = byCwd.get(cwd);
    if (!found) {
      found = loadSpell(path, { ...base, loom: cantrip.loom, rootDir: cwd }).then(
        (l) => l.cantrip!,
      );
      byCwd.set(cwd, found);
    }
    return found;
  };
}

const ROOTED = new Set(["read", "read_ephemeral", "list_dir", "search", "write"]);

/** Whether a session's cwd changes the spell: file gates, or a bash workspace. */
function usesRoots(loaded: LoadedSpell): boolean {
  const circle = loaded.spell.circle;
  if (circle?.medium === "bash") return true;
  return (circle?.gates ?? []).some((g) => ROOTED.has(gateName(g)));
}

/** A gate as written: a name, `{ name, … }`, or `{ read: { root } }`. */
function gateName(g: unknown): string {
  if (typeof g === "string") return g;
  if (g === null || typeof g !== "object") return "";
  const name = (g as { name?: unknown }).name;
  return typeof name === "string" ? name : (Object.keys(g)[0] ?? "");
}

function contextWindowOf(loaded: LoadedSpell): number | undefined {
  const llm = loaded.spell.llm as { context_window?: unknown } | string | undefined;
  const folding = loaded.spell.folding as { context_window?: unknown } | undefined;
  const n = folding?.context_window ?? (typeof llm === "object" ? llm?.context_window : undefined);
  return typeof n === "number" ? n : undefined;
}
