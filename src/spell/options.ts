import type { LLM } from "../core/contract.js";
import type { Redactor } from "../core/redact.js";
import type { BuildLLM, LLMSpec } from "../llm/registry.js";
import type { Loom } from "../loom/core/index.js";

/** How a document is loaded; every field is optional. */
export interface LoadOptions {
  /** Where `${env:…}` reads from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Replaces the spell's LLM (spell tests, `spell run --llm`). */
  llm?: LLM;
  /**
   * Replaces every LLM of the document: the spell's, and its children's (call_entity's `llm`
   * and `llms`, child spells'): `spell test --replay` plays a whole recorded tree with one.
   */
  everyLLM?: LLM;
  /**
   * Builds every LLM the document builds — its own, call_entity's `llm`/`llms`, its child
   * spells' — instead of createLLM: `spell eval` puts children's queries through its scheduler.
   */
  buildLLM?: BuildLLM | undefined;
  /** Replaces the spell's `llm:` block; built like the spell's own, keeping its `retry` (`spell run --llm`). */
  llmSpec?: LLMSpec | undefined;
  /** Where provider warnings go (settings a provider cannot honour); default process.emitWarning. */
  onWarning?: ((message: string) => void) | undefined;
  /** Replaces the spell's loom path; "memory" keeps the loom in memory. */
  loomPath?: string | undefined;
  /** The loom path when neither the spell nor `loomPath` names one (the CLI's default). */
  defaultLoomPath?: string | undefined;
  /** Parse and validate only: no LLM client is built (spell validate). */
  validateOnly?: boolean;
  /** An open loom to record into instead of opening the spell's (one loom for many loads). */
  loom?: Loom | undefined;
  /**
   * Where the relative roots of file gates and `circle.root` resolve; default the spell's folder.
   * A protocol session's working directory (ACP `session/new` cwd).
   */
  rootDir?: string | undefined;
  /**
   * The folder relative paths of the document resolve against (gate roots, `loom.path`, `$file`,
   * child spells); default the document's own folder. `spell familiar DIR` loads a packaged
   * spell this way so that it works on DIR.
   */
  baseDir?: string | undefined;
  /**
   * Turns a registry reference (`oci://HOST/REPO:TAG`, a call_entity child spell) into the path
   * of its fetched main file. Default: fetched into the cache under the lock beside the file
   * loaded first (registry/index.ts `resolverFor`); a nested document uses its parent's.
   */
  remote?: ((ref: string) => Promise<string>) | undefined;
  /** Where secrets of `${env:…}` go; a nested document (a child spell) shares its parent's. */
  redactor?: Redactor;
}
