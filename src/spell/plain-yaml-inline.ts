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

/** A block mapping's key: a plain scalar that resolves to a string, then `:` and a space or the end. */
export const KEY = /^([A-Za-z_$][A-Za-z0-9_$./-]*):(?: |$)/;

/** A plain scalar may not start with these (YAML's indicators); `-`, `?`, `:` before a space. */
const INDICATOR_START = /^(?:[,[\]{}#&*!|>'"%@`]|[-?:](?: |$))/;

/** A scalar or a flow collection that is the whole of `text` (but for a comment after it). */
export function inline(text: string): unknown {
  const c = text[0];
  if (c === "{" || c === "[" || c === '"' || c === "'") {
    const flow = new Flow(text);
    const value = flow.node();
    flow.end();
    return value;
  }
  if (INDICATOR_START.test(text)) throw notPlain;
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
      const key = KEY.exec(this.text.slice(this.pos));
      // `{a:b}` is one plain key; `{a}` a key with no value; a quoted key: the library's.
      if (!key || key[0].length === key[1]!.length + 1) throw notPlain;
      const name = key[1]!;
      if (scalar(name) !== name || Object.hasOwn(map, name)) throw notPlain;
      this.pos += key[0].length;
      this.spaces();
      const value = this.node();
      if (name in map)
        Object.defineProperty(map, name, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      else map[name] = value;
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
    const rest = this.text.slice(this.pos);
    const m = /^[^,[\]{}#:]*/.exec(rest)![0];
    if (m.trim() === "" || INDICATOR_START.test(m)) throw notPlain;
    const stop = rest[m.length];
    if (stop === "#" || stop === ":" || stop === "[" || stop === "{") throw notPlain;
    this.pos += m.length;
    return scalar(m.trimEnd());
  }
}

/**
 * A plain scalar's value in the YAML 1.2 core schema, as the library resolves it: its tags'
 * tests and resolvers, in its order (yaml/dist/schema/core/schema.js).
 */
export function scalar(text: string): unknown {
  if (/^(?:~|[Nn]ull|NULL)?$/.test(text)) return null;
  if (/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(text)) return text[0] === "t" || text[0] === "T";
  if (/^0o[0-7]+$/.test(text)) return parseInt(text.substring(2), 8);
  if (/^[-+]?[0-9]+$/.test(text)) return parseInt(text, 10);
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
