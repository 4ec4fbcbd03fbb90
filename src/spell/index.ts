/**
 * The loader: parse → rewrite → validate → resolve → compile. Parse and rewrite are shared;
 * a document's `kind:` picks the schema, resolver and compiler of the rest (kinds/).
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Cantrip } from "../core/cantrip.js";
import type { Loom } from "../loom/core/index.js";
import {
  ConfigError,
  SpellErrors,
  SystemError,
  unreadableBecause,
  type SpellbookError,
} from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import type { Spell, TestCase } from "../generated/spell.js";
import {
  defaultKinds,
  type DocumentKind,
  type KindContext,
  type KindRegistry,
} from "./kinds/index.js";
import type { LoadOptions } from "./options.js";
import { interpolateEnv, renameOldWords, type Warning } from "./rewrite.js";
import { withHiddenConfig } from "./loaded-value.js";
import { SpellSource } from "./source.js";
import { schemaErrors } from "./validate.js";

export type { Warning } from "./rewrite.js";
export type { Spell, TestCase } from "../generated/spell.js";
export type { FlowTest } from "../generated/flow.js";
export type { LoadOptions } from "./options.js";
export {
  defaultKinds,
  KindRegistry,
  type DocumentKind,
  type KindContext,
  type KindName,
} from "./kinds/index.js";

/** Any kind of document, loaded. */
export interface LoadedDocument<Value = unknown, Doc = Record<string, unknown>> {
  file: string;
  /** The document's kind (`cantrip` when it names none). */
  kind: string;
  name: string;
  description: string | undefined;
  /** The compiled value; absent when `validateOnly`. */
  value: Value | undefined;
  warnings: Warning[];
  redactor: Redactor;
  /**
   * The validated, interpolated document (snake_case, as written), `${env:…}` values expanded:
   * the real configuration. Not enumerable (PROD-8): the loaded value prints redacted
   * (util.inspect, JSON.stringify, String) and `Object.values` never reaches it.
   */
  document: Doc;
  /** The parsed file (not enumerable, like `document`). */
  source: SpellSource;
  /**
   * How its `oci://` references resolved (not enumerable): `LoadOptions.remote`, or the lock
   * beside the file. A cast that loads the spell again (`spell run --repeat`) passes it on, so a
   * spell fetched by reference fetches its children under the lock it was fetched under.
   */
  remote: (ref: string) => Promise<string>;
  /** `[LoadedSpell FILE]`, redacted. */
  toString(): string;
}

/** A `kind: cantrip` document, loaded. */
export interface LoadedSpell extends LoadedDocument<Cantrip<Loom>, Spell> {
  /** Not enumerable, like `document` (an intent may hold a `${env:…}` value). */
  intent: string | undefined;
  /** Absent when `validateOnly`. */
  cantrip: Cantrip<Loom> | undefined;
  /** Not enumerable, like `document`. */
  tests: TestCase[];
  /** `document`, typed: the real configuration, not enumerable (PROD-8). */
  spell: Spell;
}

function readDocument(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    // No such file is the user's mistake (exit 3), like a bad flag; other IO failures are not.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR")
      throw new ConfigError("spell_not_found", `cannot read ${file}: ${unreadableBecause(err)}`);
    throw new SystemError("spell_unreadable", `cannot read ${file}: ${unreadableBecause(err)}`, {
      cause: err,
    });
  }
}

/** Loads a document of any kind the registry knows. Throws SpellErrors with all errors. */
export async function loadDocument(
  file: string,
  options: LoadOptions = {},
  kinds: KindRegistry = defaultKinds(),
): Promise<LoadedDocument> {
  return loadDocumentText(readDocument(file), file, options, kinds);
}

export async function loadDocumentText(
  text: string,
  file: string,
  options: LoadOptions = {},
  kinds: KindRegistry = defaultKinds(),
): Promise<LoadedDocument> {
  const env = options.env ?? process.env;
  const parsed = await parseDocument(text, file, env, kinds, options.redactor);
  const { source, value, warnings, redactor, kind } = parsed;
  const remote = options.remote ?? lazyResolver(file, env);
  const loadNested = async (nested: string, extra: LoadOptions = {}) => {
    const child = await loadDocument(
      nested.startsWith("oci://") ? await remote(nested) : nested,
      {
        env,
        redactor,
        remote,
        loomPath: "memory",
        ...(options.validateOnly ? { validateOnly: true } : {}),
        ...extra,
      },
      kinds,
    );
    return { kind: child.kind, value: child.value, document: child.document };
  };
  const ctx: KindContext = {
    file,
    baseDir: options.baseDir === undefined ? dirname(resolve(file)) : resolve(options.baseDir),
    locate: source.position.bind(source),
    env,
    redactor,
    warnings,
    source,
    options,
    remote,
    loadNested,
  };
  const { resolved, errors } = await kind.resolve(value, ctx);
  if (errors.length) throw redactedErrors(errors, redactor);
  const compiled = await kind.compile(resolved, ctx);
  if (compiled.errors.length) throw redactedErrors(compiled.errors, redactor);
  const shown = {
    file,
    kind: kind.name,
    name: typeof value["name"] === "string" ? value["name"] : file,
    description: typeof value["description"] === "string" ? value["description"] : undefined,
    value: options.validateOnly ? undefined : compiled.value,
    warnings,
    redactor,
  };
  // PROD-8: the expanded document is reached by name only and prints redacted (loaded-value.ts).
  return withHiddenConfig(
    shown as LoadedDocument,
    { document: value, source, remote },
    (t) => redactor.redact(t),
    "LoadedDocument",
  );
}

/** The registry's resolver for `file`'s references, its code loaded on the first reference. */
function lazyResolver(file: string, env: NodeJS.ProcessEnv): (ref: string) => Promise<string> {
  let resolver: ((ref: string) => Promise<string>) | undefined;
  return async (ref) => {
    if (!resolver) {
      const { resolverFor } = await import("../registry/index.js");
      resolver = resolverFor(file, env);
    }
    return resolver(ref);
  };
}

/** Loads a `kind: cantrip` spell; a document of another kind is an error. */
export async function loadSpell(file: string, options: LoadOptions = {}): Promise<LoadedSpell> {
  return spellOf(await loadDocument(file, options));
}

export async function loadSpellText(
  text: string,
  file: string,
  options: LoadOptions = {},
): Promise<LoadedSpell> {
  return spellOf(await loadDocumentText(text, file, options));
}

/** The cantrip view of a loaded document; a document of another kind is an error. */
export function spellOf(loaded: LoadedDocument): LoadedSpell {
  if (loaded.kind !== "cantrip") {
    throw new SpellErrors([
      new ConfigError(
        "not_a_cantrip",
        `this is a kind: ${loaded.kind} document, not a cantrip`,
        loaded.source.position(["kind"]),
      ),
    ]);
  }
  const spell = loaded.document as Spell;
  const cantrip = loaded.value as Cantrip<Loom> | undefined;
  const { file, kind, name, description, warnings, redactor } = loaded;
  const shown = { file, kind, name, description, value: cantrip, warnings, redactor, cantrip };
  return withHiddenConfig(
    shown as LoadedSpell,
    {
      document: spell,
      spell,
      source: loaded.source,
      remote: loaded.remote,
      intent: spell.intent,
      tests: spell.tests ?? [],
    },
    (t) => redactor.redact(t),
    "LoadedSpell",
  );
}

/** Parse, rewrite and validate against the kind's schema; throws SpellErrors holding every problem found. */
export async function parseDocument(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv,
  kinds: KindRegistry = defaultKinds(),
  shared?: Redactor,
) {
  const source = new SpellSource(file, text);
  const errors: SpellbookError[] = source.syntaxErrors();
  if (errors.length) throw new SpellErrors(errors);
  const warnings: Warning[] = [];
  const redactor = shared ?? new Redactor();
  const rewriteErrors: ConfigError[] = [];
  try {
    renameOldWords(source, warnings);
  } catch (err) {
    if (err instanceof ConfigError) rewriteErrors.push(err);
    else throw err;
  }
  interpolateEnv(source, env, redactor, rewriteErrors);
  const value = source.toJS();
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SpellErrors([
      new ConfigError(
        "spell_not_mapping",
        "a spell is a YAML mapping (key: value)",
        source.position([]),
      ),
    ]);
  }
  const doc = value as Record<string, unknown>;
  const locate = source.position.bind(source);
  let kind: DocumentKind;
  try {
    kind = await kinds.pick(doc, locate);
  } catch (err) {
    throw redactedErrors([...rewriteErrors, err as ConfigError], redactor);
  }
  const all = [...rewriteErrors, ...schemaErrors(doc, locate, kind.validator)];
  // Schema errors do not hide the kind's own rules: every error of the document at once.
  if (all.length) all.push(...unsaid(all, kind.check?.(doc, locate) ?? []));
  if (all.length) throw redactedErrors(all.sort(byPosition), redactor);
  return { source, value: doc, warnings, redactor, kind };
}

/** An error may quote a value that came from the environment: it leaves redacted (PROD-8). */
function redactedErrors(errors: SpellbookError[], redactor: Redactor): SpellErrors {
  for (const e of errors) e.message = redactor.redact(e.message);
  return new SpellErrors(errors);
}

/** The kind's errors the schema's did not already say at the same place. */
function unsaid(said: SpellbookError[], more: SpellbookError[]): SpellbookError[] {
  const at = (e: SpellbookError) => `${e.position?.line}:${e.position?.col}`;
  const places = new Set(said.map(at));
  return more.filter((e) => !places.has(at(e)));
}

const byPosition = (a: SpellbookError, b: SpellbookError): number =>
  (a.position?.line ?? 0) - (b.position?.line ?? 0) ||
  (a.position?.col ?? 0) - (b.position?.col ?? 0);
