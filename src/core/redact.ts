/**
 * PROD-8: secrets never reach logs, events or default loom exports. Known secret values
 * (API keys, `${env:…}` values) and common shapes (sk-…, bearer tokens) become [REDACTED].
 * This class is the one redaction of every sink (the CLI, `spell serve`'s answers and session
 * looms, the loom at rest, exports, OpenTelemetry, the worker's log): each known secret is
 * redacted in every form of redact-forms.ts, wherever it is redacted.
 */
/**
 * Where a shape may start: at a word boundary, or just after a JSON escape (`\n`, `\t`, `\r`,
 * `\b`, `\f`, `\u000b`…, once or more escaped), whose last letter or digit hides the boundary:
 * a tool call's arguments, an answer sent as JSON, a loom line quoted in a report.
 */
const START = String.raw`(?:\b|(?<=\\[nrtbf]|\\u[0-9A-Fa-f]{4}))`;
/** Whitespace, as itself or as a JSON escape (between "Bearer" and its token). */
const SPACE = String.raw`(?:\s|\\+[nrtf]|\\+u[0-9A-Fa-f]{4})`;
const SHAPES: readonly RegExp[] = [
  new RegExp(String.raw`${START}sk-[A-Za-z0-9_-]{16,}`, "g"),
  new RegExp(String.raw`${START}(?:Bearer|bearer)${SPACE}+[A-Za-z0-9._~+/=-]{16,}`, "g"),
  new RegExp(String.raw`${START}xox[abprs]-[A-Za-z0-9-]{10,}`, "g"),
  new RegExp(String.raw`${START}gh[pousr]_[A-Za-z0-9]{20,}`, "g"),
  // An AWS access key id, long-term (AKIA) or temporary (ASIA), also beside `_` or a lower-case
  // letter (`key_AKIA…`, where `\b` would not match), or after a `\uXXXX` escape.
  new RegExp(String.raw`(?:(?<![A-Z0-9])|(?<=\\u[0-9A-Fa-f]{4}))A[KS]IA[0-9A-Z]{16}`, "g"),
];
/**
 * The literal every shape starts with: text without any of them holds no shape, so one scan
 * spares the five (most text, every object key, holds none).
 */
const SHAPE_START = /sk-|[Bb]earer|xox[abprs]-|gh[pousr]_|A[KS]IA/;
/**
 * The shortest text any of SHAPES matches (`xox` + a letter, `-` and 10 more): shorter text holds
 * no shape. (sk-: 19, Bearer: 23, gh: 24, AKIA: 20.)
 */
export const SHAPE_SHORTEST = 15;
/** Strings up to this long are remembered redacted (object keys, ids, short values repeat). */
const MEMO_LENGTH = 64;
/** How many; the memo starts over past it. */
const MEMO_SIZE = 4096;

import { inspect } from "node:util";
import {
  escapeRegExp,
  percentEncodable,
  secretForms,
  unicodeEscapePattern,
  urlPattern,
} from "./redact-forms.js";

export const REDACTED = "[REDACTED]";

/**
 * The shortest text in which anything `add(secret)` adds can match: a literal form (the secret,
 * its escaped, reversed, hex and base64 spellings — base64 inside a longer run is its shortest),
 * the URL pattern (every character is one character at least, but tabs and newlines, which a URL
 * parser drops, may be missing), the `\uXXXX` pattern (one character at least per UTF-16 unit).
 */
export function shortestMatch(secret: string): number {
  let n = [...secret].filter((c) => !/^[\t\n\r]$/.test(c)).length;
  for (const form of [...secretForms(secret), ...percentEncodable(secret)])
    n = Math.min(n, form.length);
  return Math.min(n, secret.length);
}

export class Redactor {
  // ES private fields (#): util.inspect, JSON.stringify and Object.values never reach a secret
  // or a form of one (PROD-8).
  readonly #secrets = new Set<string>();
  readonly #values = new Set<string>();
  #urlLongest = 0;
  #escapedLongest = 0;
  /** URL-encoded spellings tried on all text (a space as `+`, a backslash as `/`). */
  readonly #patterns: RegExp[] = [];
  /** URL-encoded spellings tried only on text that holds a `%`. */
  readonly #percent: RegExp[] = [];
  /** Secrets spelled with `\uXXXX` escapes; tried only on text that has one. */
  readonly #escaped: RegExp[] = [];
  /** `values`, longest first (a form that contains another is replaced whole). */
  #ordered: string[] | null = null;
  /**
   * Any of `values`: one scan tells whether text holds a form at all (most text holds none),
   * before each form is looked for on its own.
   */
  #any: RegExp | null = null;
  /**
   * Any of `values` or any shape's first letters: text it does not match needs neither the
   * forms nor the shapes (one scan where there were two).
   */
  #maybe: RegExp = SHAPE_START;
  /** Short strings already redacted with the secrets known then (emptied by `add`). */
  readonly #memo = new Map<string, string>();
  /**
   * The shortest text any form, pattern or shape can match: shorter text (most object keys,
   * short values) is given back as it is, without a look (issue 40).
   */
  #shortest = SHAPE_SHORTEST;

  /**
   * Values shorter than 4 characters are not treated as secrets (they would shred text); a
   * value of 4 characters or more is redacted wherever it appears, inside a longer word too.
   * Every form the secret can be printed in is redacted too (see redact-forms.ts).
   */
  add(secret: string | undefined | null): void {
    if (typeof secret !== "string" || secret.length < 4 || this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    for (const form of secretForms(secret)) this.#values.add(form);
    const url = urlPattern(secret);
    if (url) this.#patterns.push(url);
    else this.#percent.push(urlPattern(secret, true)!);
    for (const form of percentEncodable(secret)) this.#percent.push(urlPattern(form)!);
    this.#escaped.push(unicodeEscapePattern(secret));
    this.#shortest = Math.min(this.#shortest, shortestMatch(secret));
    this.#ordered = null;
    this.#memo.clear();
    // The longest spelling: every UTF-8 byte as %XX (base64 is a third longer than the bytes).
    this.#urlLongest = Math.max(this.#urlLongest, Math.ceil(Buffer.byteLength(secret) * 4));
    // Every character as \\\uXXXX (three backslashes at most: JSON text twice quoted).
    this.#escapedLongest = Math.max(this.#escapedLongest, secret.length * 8);
  }

  /** The longest secret written with `\uXXXX` escapes: a stream holding a `\u` holds this much. */
  get longestEscaped(): number {
    return Math.max(this.longest, this.#escapedLongest);
  }

  /** The length of the longest known secret (a stream must hold back this much text). */
  get longest(): number {
    let n = this.#urlLongest;
    for (const value of this.#values) n = Math.max(n, value.length);
    return n;
  }

  /** Printed (util.inspect, console.log) with how many secrets it knows, never which (PROD-8). */
  [inspect.custom](): string {
    const n = this.#secrets.size;
    return `Redactor { ${n} secret${n === 1 ? "" : "s"}: ${REDACTED} }`;
  }

  toJSON(): { secrets: number } {
    return { secrets: this.#secrets.size };
  }

  redact(text: string): string {
    if (text.length < this.#shortest) return text;
    if (text.length > MEMO_LENGTH) return this.#redact(text);
    let out = this.#memo.get(text);
    if (out === undefined) {
      if (this.#memo.size >= MEMO_SIZE) this.#memo.clear();
      this.#memo.set(text, (out = this.#redact(text)));
    }
    return out;
  }

  #redact(text: string): string {
    let out = text;
    if (!this.#ordered) {
      this.#ordered = [...this.#values].sort((a, b) => b.length - a.length);
      // Literal alternatives only: no quantifier, so no backtracking beyond one form's length.
      this.#any = this.#ordered.length
        ? new RegExp(this.#ordered.map(escapeRegExp).join("|"))
        : null;
      this.#maybe = this.#any
        ? new RegExp(`${this.#any.source}|${SHAPE_START.source}`)
        : SHAPE_START;
    }
    // A shape's first letters are in `out` below only if they are in `text`: a replacement
    // ([REDACTED]) holds none and cannot join two halves.
    const maybe = this.#maybe.test(text);
    if (maybe && this.#any?.test(out))
      for (const value of this.#ordered)
        if (out.includes(value)) out = out.split(value).join(REDACTED);
    for (const pattern of this.#patterns) out = out.replace(pattern, REDACTED);
    if (out.includes("%"))
      for (const pattern of this.#percent) out = out.replace(pattern, REDACTED);
    if (out.includes("\\u"))
      for (const pattern of this.#escaped) out = out.replace(pattern, REDACTED);
    if (maybe && SHAPE_START.test(out))
      for (const shape of SHAPES) out = out.replace(shape, REDACTED);
    return out;
  }
}
