/**
 * The value of a spell written in the plainest YAML, read without the `yaml` library: block
 * mappings and sequences, one-line flow collections, one-line plain and quoted scalars, comments.
 * Anything else (a block scalar, a scalar over several lines, an anchor, a tag, an escape, a tab,
 * a duplicate key, a document marker, a question of indentation…) is not plain: `plainYaml`
 * answers NOT_PLAIN and the spell is read by the library as before.
 *
 * Why: the library reads a 2 KB spell in ~39 M instructions at start-up (its lexer, parser and
 * composer are generators, run once, cold), a fifth of a `spell run`; this reads it in a small
 * fraction of that. What it answers for plain YAML is exactly the library's `toJS()` of the
 * document (the core schema's scalars, the library's way of adding keys), and the library parses
 * such a text without an error or a warning: tests/spell/plain-yaml.test.ts holds both to the
 * library over the repository's YAML files and over cases at the subset's edges. Positions are
 * not kept: an error's file:line:col comes from the library's document, parsed when it is asked
 * for (source.ts).
 */
import { inline, keyAt, notPlain, scalar, setPair } from "./plain-yaml-inline.js";

/** What `plainYaml` answers for a text it does not read. */
export const NOT_PLAIN: unique symbol = Symbol("not plain YAML");

interface Line {
  /** Column of the line's first character that is not a space. */
  indent: number;
  /** The line from that column. */
  text: string;
}

/**
 * What sends a text to the library at once, before any of it is read here: a character outside
 * printable ASCII, the newline, and the Basic Multilingual Plane from U+00A0 without surrogates
 * and the byte order mark (so a tab, a carriage return, a backslash — escapes —, any other
 * control character); and what looks like a block scalar's header (`key: |`, `- >`), the most
 * common YAML that is not plain, so that such a spell pays for one scan, not half a reading.
 * (A regular expression: a loop over the text in V8's interpreter costs more.)
 */
const OUTSIDE = /[^\n\x20-\x5b\x5d-\x7e\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]|[:-] +[|>]/;

/** The value of `text`, or NOT_PLAIN when it is not in the subset read here. */
export function plainYaml(text: string): unknown {
  if (OUTSIDE.test(text)) return NOT_PLAIN;
  const lines: Line[] = [];
  for (const raw of text.split("\n")) {
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent++;
    const rest = raw.slice(indent);
    if (rest === "" || rest[0] === "#") continue; // blank, or a comment line
    // A document marker or a directive: several documents, or one announced; the library's.
    if (rest.startsWith("---") || rest.startsWith("...") || rest[0] === "%") return NOT_PLAIN;
    lines.push({ indent, text: rest.trimEnd() });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return NOT_PLAIN;
  try {
    const reader = new Reader(lines);
    const value = reader.block(0);
    // A spell is a mapping; whatever else it is, the library says it (and where).
    if (reader.at !== lines.length || !isMapping(value)) return NOT_PLAIN;
    return value;
  } catch {
    // Outside the subset, or nested past the stack's depth: the library's to read (or refuse).
    return NOT_PLAIN;
  }
}

function isMapping(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

class Reader {
  at = 0;
  constructor(private readonly lines: Line[]) {}

  /** The block node whose first line is the current one, at that line's indent. */
  block(parent: number): unknown {
    const line = this.lines[this.at]!;
    if (line.indent < parent) throw notPlain;
    if (isSeqItem(line.text)) return this.sequence(line.indent);
    if (keyAt(line.text, 0) !== undefined) return this.mapping(line.indent);
    // A node alone on its line (`key:` then the value below): one line, nothing after it deeper.
    this.at++;
    const value = inline(line.text);
    this.endOfNode(line.indent);
    return value;
  }

  /** Throws unless the next line starts no deeper than `indent` (a continuation, or an error). */
  private endOfNode(indent: number): void {
    const next = this.lines[this.at];
    if (next && next.indent >= indent) throw notPlain;
  }

  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      const line = this.lines[this.at];
      if (!line || line.indent !== indent || !isSeqItem(line.text)) break;
      items.push(this.item(line, indent, 1));
    }
    const next = this.lines[this.at];
    if (next && next.indent > indent) throw notPlain;
    return items;
  }

  private mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (;;) {
      const line = this.lines[this.at];
      if (!line || line.indent !== indent) break;
      const name = keyAt(line.text, 0);
      if (name === undefined) {
        // A compact sequence ends at a line of its mapping's indent: it must be a key.
        throw notPlain;
      }
      // The library's core schema would make this key null, a boolean or a number; the value's
      // property name would then be its string, but such a spell is rare: the library's.
      if (scalar(name) !== name || name.length > 1000) throw notPlain;
      if (Object.hasOwn(map, name)) throw notPlain; // a duplicate key: the library's error
      const value = this.item(line, indent, name.length + 1, true);
      setPair(map, name, value);
    }
    const next = this.lines[this.at];
    if (next && next.indent > indent) throw notPlain;
    return map;
  }

  /**
   * The value after a sequence's `-` or a mapping's `key:`, which take `taken` characters of
   * `line`: on the same line, or the block below (deeper; for a mapping, also a sequence at the
   * mapping's own indent), or null.
   */
  private item(line: Line, indent: number, taken: number, inMapping = false): unknown {
    let column = taken;
    while (line.text.charCodeAt(column) === 32) column++;
    const rest = line.text.slice(column);
    if (rest === "" || rest[0] === "#") {
      this.at++;
      const next = this.lines[this.at];
      if (next && next.indent > indent) return this.block(indent + 1);
      if (inMapping && next && next.indent === indent && isSeqItem(next.text))
        return this.sequence(indent);
      return null;
    }
    // `- key: value` or `- - x`: a block node that starts inside the item's line.
    if (!inMapping && (isSeqItem(rest) || keyAt(rest, 0) !== undefined)) {
      this.lines[this.at] = { indent: indent + column, text: rest };
      return this.block(indent + 1);
    }
    if (inMapping && isSeqItem(rest)) throw notPlain; // `key: - x`: the library's error
    this.at++;
    const value = inline(rest);
    this.endOfNode(indent + 1);
    return value;
  }
}

function isSeqItem(text: string): boolean {
  return text[0] === "-" && (text.length === 1 || text[1] === " ");
}
