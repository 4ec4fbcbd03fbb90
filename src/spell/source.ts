import { inspect } from "node:util";
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
} from "yaml";
import { ConfigError, type SourcePosition } from "../core/errors.js";
import { NOT_PLAIN, plainYaml } from "./plain-yaml.js";
import { explainYamlError, unclosedFlow } from "./yaml-explain.js";

/** Spell files larger than this are refused before parsing. */
export const MAX_SPELL_BYTES = 1024 * 1024;
/** YAML aliases beyond this count are refused (a "billion laughs" alias bomb). */
export const MAX_ALIASES = 100;

export type Path = readonly (string | number)[];

const SECOND_DOCUMENT =
  "a second YAML document starts here (after ---): a spell file holds one document; " +
  "remove this --- (or the text after it), or put the second document in a file of its own";

/**
 * A parsed YAML document that can say where any value came from. Its YAML document holds the
 * `${env:…}` values once they are interpolated (PROD-8): kept in an ES private field, reached by
 * name (`doc`) only; the source prints (util.inspect, JSON.stringify) as its file name.
 *
 * A spell in the plainest YAML (plain-yaml.ts) is read without the `yaml` library, whose cold
 * parse is a fifth of a `spell run`'s start-up: its value is that reading, and the library's
 * document is parsed only when something asks for it (a position for an error or a warning, an
 * old word to rename, a `${env:…}` to interpolate), as it would have parsed it here.
 */
export class SpellSource {
  #doc: Document | undefined;
  /** The text's value when it is plain YAML and nothing has asked for the document. */
  #plain: unknown;
  readonly #lines = new LineCounter();

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    if (Buffer.byteLength(text) > MAX_SPELL_BYTES) {
      throw new ConfigError(
        "spell_too_large",
        `spell file is ${Buffer.byteLength(text)} bytes; the limit is ${MAX_SPELL_BYTES}`,
        { file, line: 1, col: 1 },
      );
    }
    // The library's debugging switches print what it parses: with one set, it parses.
    this.#plain = YAML_SWITCHES.some((name) => process.env[name] !== undefined)
      ? NOT_PLAIN
      : plainYaml(text);
    if (this.#plain === NOT_PLAIN) this.#doc = this.#parse();
  }

  #parse(): Document {
    // The library's own unique-keys check compares every pair with every other (quadratic:
    // 30 s for a 1 MiB mapping); duplicateKeys below does it in one pass.
    return withPlainEnv(() =>
      parseDocument(this.text, {
        lineCounter: this.#lines,
        prettyErrors: false,
        uniqueKeys: false,
      }),
    );
  }

  /** The YAML document, with `${env:…}` values once interpolated: never print it. */
  get doc(): Document {
    // Whoever asks may change the document (rewrite.ts): its value is the document's from now.
    this.#plain = NOT_PLAIN;
    return this.#document();
  }

  /** The document, for reading only (positions). */
  #document(): Document {
    return (this.#doc ??= this.#parse());
  }

  /**
   * The value of a plain YAML text (plain-yaml.ts) that nothing has changed, without parsing the
   * document; undefined when the document is the value's source.
   */
  plainValue(): object | undefined {
    return this.#plain === NOT_PLAIN ? undefined : (this.#plain as object);
  }

  [inspect.custom](): string {
    return `SpellSource { file: ${inspect(this.file)} }`;
  }

  toJSON(): { file: string } {
    return { file: this.file };
  }

  /** Syntax errors of the YAML itself, and duplicate keys, each at its position. */
  syntaxErrors(): ConfigError[] {
    // Plain YAML is read only when the library finds no error in it, nor a duplicate key.
    if (this.#plain !== NOT_PLAIN) return [];
    // After the first few, YAML errors are echoes of the first: keep what helps.
    let unclosed: ConfigError | undefined;
    const syntax = this.doc.errors.slice(0, 3).map((e) => {
      const at = this.at(e.pos[0]);
      // A bracket left open is told where it was opened; the errors after it are its echoes.
      const flow = /^Flow (sequence|map) in block collection/.test(e.message)
        ? unclosedFlow(this.text, at.line)
        : undefined;
      if (flow)
        return (unclosed ??= new ConfigError("yaml_syntax", flow.message, { ...at, ...flow }));
      // Indentation is told in spell terms; the errors after it are its echoes.
      const told = explainYamlError(e.code, this.text, at.line);
      if (told) return new ConfigError("yaml_indentation", told.message, { ...at, ...told });
      // The library's words name its own API for many documents; a spell file is one document.
      if (e.code === "MULTIPLE_DOCS") return new ConfigError("yaml_syntax", SECOND_DOCUMENT, at);
      return new ConfigError("yaml_syntax", e.message.split("\n")[0] ?? e.message, at);
    });
    const first = syntax[0];
    if (first?.code === "yaml_indentation" || (first && first === unclosed)) return [first];
    return syntax.length ? syntax : duplicateKeys(this).slice(0, 10);
  }

  toJS(): unknown {
    if (this.#plain !== NOT_PLAIN) {
      // Once: a second call gets a new value from the document, as the library makes one a call.
      const value = this.#plain;
      this.#plain = NOT_PLAIN;
      return value;
    }
    try {
      return this.doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (err) {
      if (err instanceof ReferenceError && /alias/i.test(err.message)) {
        throw new ConfigError(
          "yaml_alias_bomb",
          `too many YAML alias expansions (more than ${MAX_ALIASES}); refusing a possible alias bomb`,
          this.at(0),
        );
      }
      throw err;
    }
  }

  /** Where the value at `path` starts; `key: true` points at its key instead. */
  position(path: Path, options: { key?: boolean } = {}): SourcePosition {
    let node: unknown = this.#document().contents;
    let offset = (node as Node | null)?.range?.[0] ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg),
        );
        if (!pair) break;
        const target = last && options.key ? pair.key : (pair.value ?? pair.key);
        node = target;
        offset = (target as Node | null)?.range?.[0] ?? offset;
      } else if (isSeq(node) && typeof seg === "number") {
        const item = node.items[seg];
        if (!item) break;
        node = item;
        offset = (item as Node).range?.[0] ?? offset;
      } else break;
    }
    return this.at(offset);
  }

  at(offset: number): SourcePosition {
    this.#document(); // the line counter is filled by the parse
    const { line, col } = this.#lines.linePos(offset);
    return { file: this.file, line, col };
  }
}

/** The YAML library's debugging switches, the only variables it reads. */
const YAML_SWITCHES = ["LOG_TOKENS", "LOG_STREAM"] as const;

/**
 * `fn` run with process.env a plain object holding only the YAML library's switches (when set).
 * The library's parser looks at process.env.LOG_TOKENS once per token, and process.env is no
 * plain object: every look is a call into Node's C++ side, about a quarter of the time a 1 MiB
 * spell takes to parse (bench/loader.bench.mjs). Parsing is synchronous: no other code runs
 * before the process's own environment is back.
 */
function withPlainEnv<T>(fn: () => T): T {
  const env = process.env;
  const plain: NodeJS.ProcessEnv = {};
  for (const name of YAML_SWITCHES) if (env[name] !== undefined) plain[name] = env[name];
  process.env = plain;
  try {
    return fn();
  } finally {
    process.env = env;
  }
}

/**
 * Keys written twice in one mapping, in one pass over the document: a map per mapping from
 * scalar key value to its first node. Keys are compared as the YAML library compares them
 * (`1` and `"1"` differ); collection keys are never equal.
 */
function duplicateKeys(source: SpellSource): ConfigError[] {
  const errors: ConfigError[] = [];
  walk(source.doc.contents, {
    map(map) {
      const seen = new Map<unknown, Node>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const first = seen.get(pair.key.value);
        if (!first) {
          seen.set(pair.key.value, pair.key);
          continue;
        }
        const line = source.at(first.range?.[0] ?? 0).line;
        errors.push(
          new ConfigError(
            "yaml_duplicate_key",
            `duplicate key ${JSON.stringify(String(pair.key.value))} (first written at line ${line}): map keys must be unique`,
            source.at(pair.key.range?.[0] ?? 0),
          ),
        );
      }
    },
  });
  return errors;
}

/** What `walk` calls: each mapping before its pairs; each scalar that is not a mapping's key. */
export interface Walker {
  map?(map: YAMLMap<unknown, unknown>): void;
  value?(scalar: Scalar): void;
}

/**
 * Every node under `node`, depth first in document order (aliases are not followed), as the
 * YAML library's visit() goes — without the frozen copy of the path it makes at every node
 * (a twentieth of loading a 1 MiB spell).
 */
export function walk(node: unknown, walker: Walker): void {
  if (isScalar(node)) walker.value?.(node);
  else if (isMap(node)) {
    walker.map?.(node);
    for (const pair of node.items) walkPair(pair, walker);
  } else if (isSeq(node)) {
    for (const item of node.items) {
      if (isPair(item)) walkPair(item, walker);
      else walk(item, walker);
    }
  }
}

function walkPair(pair: Pair<unknown, unknown>, walker: Walker): void {
  if (!isScalar(pair.key)) walk(pair.key, walker); // a collection as a key: its values are values
  walk(pair.value, walker);
}
