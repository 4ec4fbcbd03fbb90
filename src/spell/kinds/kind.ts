/**
 * Kinds of document (ARCHITECTURE.md "Kinds of document"): one loader, and a YAML document's
 * `kind:` picks how it is validated, resolved and compiled. `cantrip` is the first kind; a
 * kind is data in a registry, built in one place (kinds/index.ts), never filled by imports.
 */
import type { SpellbookError } from "../../core/errors.js";
import type { Redactor } from "../../core/redact.js";
import type { LoadOptions } from "../options.js";
import type { Warning } from "../rewrite.js";
import type { SpellSource } from "../source.js";
import type { Locate, SchemaValidator } from "../validate.js";
import { didYouMean } from "../suggest.js";
import { ConfigError } from "../../core/errors.js";

export type { SchemaValidator } from "../validate.js";

/** What every stage of one load shares: where the document is, and where problems go. */
export interface KindContext<Options = unknown> {
  file: string;
  /** The folder of the document: relative paths in it resolve here, never the working directory. */
  baseDir: string;
  locate: Locate;
  env: NodeJS.ProcessEnv;
  redactor: Redactor;
  warnings: Warning[];
  source: SpellSource;
  /** The caller's options (for `cantrip`, the loader's LoadOptions). */
  options: Options;
  /**
   * Loads another document with this one's environment and redactor (a child spell, a flow's
   * `cast:` spell); handed in by the loader, so a kind never imports the loader back. `extra`
   * overrides the options the nested document is loaded with (a flow passes its loom and LLM on).
   */
  /** A registry reference (`oci://…`) made the path of its fetched main file (the loader's). */
  remote(ref: string): Promise<string>;
  loadNested(
    file: string,
    extra?: LoadOptions,
  ): Promise<{ kind: string; value: unknown; document?: Record<string, unknown> }>;
}

/** The stages a kind supplies; parse and rewrite are shared by every kind. */
export interface DocumentKind<Doc = unknown, Resolved = unknown, Value = unknown> {
  /** The value of `kind:` that selects this kind. */
  readonly name: string;
  /** The kind's schema, generated from `schemas/<kind>.schema.json`. */
  readonly validator: SchemaValidator;
  /**
   * Everything the document names outside itself (files, child spells, LLM specs, roots),
   * loaded and checked. Returns the problems found, all of them, each positioned.
   */
  resolve(doc: Doc, ctx: KindContext): Promise<{ resolved?: Resolved; errors: SpellbookError[] }>;
  /**
   * Rules the schema cannot say, checked on the document as written even when the schema
   * failed, so that schema errors never hide them (every error at once). Optional.
   */
  check?(doc: Record<string, unknown>, locate: Locate): SpellbookError[];
  /** The runtime value; problems collected as in `resolve`. */
  compile(
    resolved: Resolved,
    ctx: KindContext,
  ): Promise<{ value?: Value; errors: SpellbookError[] }>;
}

/**
 * A kind whose modules load when a document names it (`spell run` of a cantrip never loads the
 * council's or the flows' code: ARCHITECTURE.md "Start-up").
 */
export interface LazyKind {
  readonly name: string;
  load(): Promise<DocumentKind>;
}

/** The kinds a loader knows, by name. */
export class KindRegistry {
  private readonly byName = new Map<string, DocumentKind | LazyKind>();

  constructor(kinds: readonly (DocumentKind | LazyKind)[] = []) {
    for (const k of kinds) this.register(k);
  }

  register(kind: DocumentKind | LazyKind): this {
    if (this.byName.has(kind.name))
      throw new ConfigError(
        "duplicate_kind",
        `kind ${JSON.stringify(kind.name)} is registered twice`,
      );
    this.byName.set(kind.name, kind);
    return this;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The kind a document names (`cantrip` when it names none); unknown kinds say "did you mean". */
  async pick(value: Record<string, unknown>, locate: Locate): Promise<DocumentKind> {
    const named = value["kind"] ?? "cantrip";
    const kind = typeof named === "string" ? this.byName.get(named) : undefined;
    if (kind) return "load" in kind ? kind.load() : kind;
    const known = this.names();
    throw new ConfigError(
      "unknown_kind",
      `kind: unknown document kind ${JSON.stringify(named)}${didYouMean(typeof named === "string" ? named : "", known) || `; known: ${known.join(", ")}`}`,
      locate(["kind"]),
    );
  }
}
