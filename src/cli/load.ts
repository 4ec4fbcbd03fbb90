/**
 * Loading a document for a command that casts (`spell run`, `spell summon`): the `--llm` and
 * `--loom` flags applied, every warning printed (redacted), a load error turned into its exit code.
 */
import { SpellbookError, errorMessage } from "../core/errors.js";
import { parseLLMShorthand, providerRegistry } from "../llm/registry.js";
import { loadDocument, type LoadedDocument } from "../spell/index.js";
import { displayPath, EXIT, type CliIO } from "./io.js";
import { ownEntry } from "../core/own.js";
import { openSpell } from "./open-spell.js";

export const DEFAULT_LOOM = ".spellbook/loom.jsonl";

/** The providers whose `--llm` must name a model, each with an example of one. */
const NEEDS_MODEL = new Map([
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-4.1"],
  ["openrouter", "auto"],
  ["google", "gemini-2.5-flash"],
  ["local", "qwen3"],
]);

/** The flags every casting command shares. */
export interface LoadFlags {
  loom?: string | undefined;
  /** `provider/model`: replaces the spell's LLM for this run. */
  llm?: string | undefined;
  /** Relative paths of the spell resolve here instead of its folder (`spell familiar DIR`). */
  baseDir?: string | undefined;
  /** Plain HTTP to a registry not on loopback, for an `oci://` spell (README "Sharing spells"). */
  "plain-http"?: boolean | undefined;
}

/** The loaded document, or the exit code when it could not be loaded (the error printed). */
export async function loadForCast(
  file: string,
  flags: LoadFlags,
  io: CliIO,
): Promise<LoadedDocument | number> {
  const llmSpec = flags.llm === undefined ? undefined : parseLLMShorthand(flags.llm);
  if (llmSpec && !ownEntry(providerRegistry, llmSpec.provider)) {
    io.stderr(
      `--llm ${flags.llm}: unknown provider ${JSON.stringify(llmSpec.provider)}; known: ${Object.keys(providerRegistry).join(", ")}\n`,
    );
    return EXIT.invalid;
  }
  if (llmSpec && NEEDS_MODEL.has(llmSpec.provider) && !llmSpec.model?.trim()) {
    io.stderr(
      `--llm ${flags.llm}: name the model after the provider, e.g. --llm ${llmSpec.provider}/${NEEDS_MODEL.get(llmSpec.provider)}\n`,
    );
    return EXIT.invalid;
  }
  if (llmSpec?.provider === "scripted") {
    io.stderr(
      `--llm ${flags.llm}: the scripted provider has no replies on the command line; they are written in the spell (llm: { provider: scripted, responses: [...] }). Give a real provider instead, e.g. --llm anthropic/claude-sonnet-4-5\n`,
    );
    return EXIT.invalid;
  }
  const opened = await openSpell(file, io, { plainHttp: flags["plain-http"] });
  if (typeof opened === "number") return opened;
  let doc: LoadedDocument | undefined;
  try {
    doc = await loadDocument(displayPath(io.cwd, opened.path), {
      ...(opened.remote ? { remote: opened.remote } : {}),
      env: io.env,
      loomPath: flags.loom,
      defaultLoomPath: DEFAULT_LOOM,
      llmSpec,
      ...(flags.baseDir === undefined ? {} : { baseDir: flags.baseDir }),
      onWarning: (message) => io.stderr(`warning: ${doc?.redactor.redact(message) ?? message}\n`),
    });
    return doc;
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return exitFor(err);
  }
}

/** The spell's own warnings (old words renamed …), at file:line:col, redacted. */
export function printWarnings(
  loaded: Pick<LoadedDocument, "warnings" | "redactor">,
  io: CliIO,
): void {
  for (const w of loaded.warnings) {
    io.stderr(
      loaded.redactor.redact(
        `${w.position.file}:${w.position.line}:${w.position.col}: warning: ${w.message}\n`,
      ),
    );
  }
}

/** A spell the user must fix exits 3; anything else that failed, 4. */
export function exitFor(err: unknown): number {
  return err instanceof SpellbookError && err.family === "spell" ? EXIT.invalid : EXIT.failure;
}
