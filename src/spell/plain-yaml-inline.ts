/**
 * The one-line nodes of plain YAML (plain-yaml.ts): plain and quoted scalars and flow collections,
 * and the core schema's reading of a plain scalar.
 */

/**
 * Thrown inside the reader when the text leaves the subset; never escapes `plainYaml`. Made
 * without calling the constructor: an Error's constructor records a stack at module load.
 */
class NotPlain extends Error {}
export const notPlain: NotPlain = Object.create(NotPlain.prototype) as NotPlain;

// The text is scanned by hand rather than with regular expressions: each one is compiled at its
// first use, which a `spell run` pays in full.

/**
 * The key of a mapping's entry at `from` in `text`: a letter, `_` or `$`, then letters, digits and `_$./-` (a plain
 * scalar that resolves to a string), then `:` and a space or the end; undefined when there is none.
 */
export function keyAt(text: string, from: number): string | undefined {
  let i = from;
  let c = text.charCodeAt(i);
  if (!(isLetter(c) || c === 0x5f || c === 0x24)) return undefined; // A-Za-z _ $
  do c = text.charCodeAt(++i);
  while (
    isLetter(c) ||
    isDigit(c) ||
    c === 0x5f ||
    c === 0x24 ||
    c === 0x2e ||
    c === 0x2f ||
    c === 0x2d
  ); // _ $ . / -
  if (c !== 0x3a) return undefined; // :
  if (i + 1 < text.length && text.charCodeAt(i + 1) !== 0x20) return undefined;
  return text.slice(from, i);
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Whether a plain scalar would start with an indicator of YAML; `-`, `?`, `:` before a space. */
function startsWithIndicator(text: string): boolean {
  switch (text[0]) {
    case ",":
    case "[":
    case "]":
    case "{":
    case "}":
    case "#":
    case "&":
    case "*":
    case "!":
    case "|":
    case ">":
    case "'":
    case '"':
    case "%":
    case "@":
    case "`":
      return true;
    case "-":
    case "?":
    case ":":
      return text.length === 1 || text[1] === " ";
    default:
      return false;
  }
}

/** A scalar or a flow collection that is the whole of `text` (but for a comment after it). */
export function inline(text: string): unknown {
  const c = text[0];
  if (c === "{" || c === "[" || c === '"' || c === "'") {
    const flow = new Flow(text);
    const value = flow.node();
    flow.end();
    return value;
  }
  if (startsWithIndicator(text)) throw notPlain;
  const hash = text.indexOf(" #");
  const plain = (hash === -1 ? text : text.slice(0, hash)).trimEnd();
  // `a: b` would be a mapping in a mapping's value (the library's error), `a:` at the end too.
  if (plain.includes(": ") || plain.endsWith(":")) throw notPlain;
  return scalar(plain);
}

/** One-line flow collections and quoted scalars, from the start of `text`. */
class Flow {
  private pos = 0;
  constructor(private readonly text: string) {}

  /** Only spaces and a comment may follow the node. */
  end(): void {
    this.spaces();
    if (
      this.pos < this.text.length &&
      !(this.text[this.pos] === "#" && this.text[this.pos - 1] === " ")
    )
      throw notPlain;
  }

  node(): unknown {
    const c = this.text[this.pos];
    if (c === "{") return this.map();
    if (c === "[") return this.seq();
    if (c === '"') return this.double();
    if (c === "'") return this.single();
    return this.plain();
  }

  private spaces(): void {
    while (this.text.charCodeAt(this.pos) === 32) this.pos++;
  }

  private map(): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    this.pos++;
    this.spaces();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return map;
    }
    for (;;) {
      const name = keyAt(this.text, this.pos);
      // `{a:b}` is one plain key; `{a}` a key with no value; a quoted key: the library's.
      if (name === undefined || this.text[this.pos + name.length + 1] !== " ") throw notPlain;
      if (scalar(name) !== name || Object.hasOwn(map, name)) throw notPlain;
      this.pos += name.length + 2;
      this.spaces();
      const value = this.node();
      setPair(map, name, value);
      if (this.next("}")) return map;
    }
  }

  private seq(): unknown[] {
    const items: unknown[] = [];
    this.pos++;
    this.spaces();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.node());
      if (this.next("]")) return items;
    }
  }

  /** After an entry: `,` and another (true: none, the collection closed with `close`). */
  private next(close: string): boolean {
    this.spaces();
    const c = this.text[this.pos];
    this.pos++;
    if (c === close) return true;
    if (c !== ",") throw notPlain;
    this.spaces();
    const after = this.text[this.pos];
    // A trailing comma, an empty entry, or the line's end (a flow over several lines).
    if (after === undefined || after === "," || after === "]" || after === "}") throw notPlain;
    return false;
  }

  private double(): string {
    const end = this.text.indexOf('"', this.pos + 1);
    if (end === -1) throw notPlain; // over several lines
    const value = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    this.afterQuote();
    return value;
  }

  private single(): string {
    let value = "";
    let from = this.pos + 1;
    for (;;) {
      const quote = this.text.indexOf("'", from);
      if (quote === -1) throw notPlain;
      value += this.text.slice(from, quote);
      if (this.text[quote + 1] === "'") {
        value += "'";
        from = quote + 2;
        continue;
      }
      this.pos = quote + 1;
      this.afterQuote();
      return value;
    }
  }

  /** A quoted scalar followed by `:` is a key (`"a": 1`): the library's. */
  private afterQuote(): void {
    let i = this.pos;
    while (this.text.charCodeAt(i) === 32) i++;
    if (this.text[i] === ":") throw notPlain;
  }

  /** A plain scalar in a flow collection: up to `,`, `]`, `}`; no `: `, `#` or indicator. */
  private plain(): unknown {
    let end = this.pos;
    while (end < this.text.length && !",[]{}#:".includes(this.text[end]!)) end++;
    const m = this.text.slice(this.pos, end);
    if (m.trim() === "" || startsWithIndicator(m)) throw notPlain;
    const stop = this.text[end];
    if (stop === "#" || stop === ":" || stop === "[" || stop === "{") throw notPlain;
    this.pos += m.length;
    return scalar(m.trimEnd());
  }
}

/**
 * A plain scalar's value in the YAML 1.2 core schema, as the library resolves it: its tags'
 * tests and resolvers (yaml/dist/schema/core/schema.js; the tests match disjoint texts, so their
 * order does not matter). Words and digits are told apart without regular expressions: each
 * one is compiled at its first use, which a `spell run` pays in full.
 */
export function scalar(text: string): unknown {
  switch (text) {
    case "":
    case "~":
    case "null":
    case "Null":
    case "NULL":
      return null;
    case "true":
    case "True":
    case "TRUE":
      return true;
    case "false":
    case "False":
    case "FALSE":
      return false;
  }
  // Every number of the schema starts with a digit, a sign or a dot.
  const first = text.charCodeAt(0);
  if (!isDigit(first) && first !== 0x2b && first !== 0x2d && first !== 0x2e) return text;
  if (isDecimal(text)) return parseInt(text, 10); // ^[-+]?[0-9]+$
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.substring(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.substring(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(text))
    return text.slice(-3).toLowerCase() === "nan"
      ? NaN
      : text[0] === "-"
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY;
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(text)) return parseFloat(text);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(text)) return parseFloat(text);
  return text;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** The core schema's decimal integer: /^[-+]?[0-9]+$/. */
function isDecimal(text: string): boolean {
  let i = text[0] === "-" || text[0] === "+" ? 1 : 0;
  if (i === text.length) return false;
  for (; i < text.length; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}

/** Adds a pair to a plain object as the library does: a key like `__proto__` becomes an own key. */
export function setPair(map: Record<string, unknown>, name: string, value: unknown): void {
  if (name in map)
    Object.defineProperty(map, name, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else map[name] = value;
}
