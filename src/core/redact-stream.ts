import type { CantripEvent, EventListener } from "./events.js";
import type { Redactor } from "./redact.js";

/**
 * Redacts text that arrives in pieces (PROD-8): a secret can be split across two deltas, so
 * text is released only up to a word boundary that no secret can span — the last two words
 * are held back (a "Bearer <token>" pair), as many characters as the longest known secret has,
 * and a prefix is released only when redacting it
 * alone gives the same text as redacting everything held. `flush` releases the rest.
 */
export class StreamRedactor {
  private held = "";

  /**
   * @param redact the run's redaction
   * @param hold characters always held back: the longest known secret (one with spaces in it
   *   must be whole before its first word is released). Default 0.
   */
  constructor(
    private readonly redact: (text: string) => string,
    private readonly hold = 0,
    /** Held back instead while the text holds a `\u` (a secret spelled with JSON escapes is longer). */
    private readonly holdEscaped = hold,
  ) {}

  push(text: string): string {
    this.held += text;
    const hold = this.held.includes("\\u") ? this.holdEscaped : this.hold;
    const cut = cutBeforeLastWords(this.held.slice(0, Math.max(0, this.held.length - hold)), 2);
    if (cut <= 0) return "";
    const prefix = this.redact(this.held.slice(0, cut));
    // A match spanning the cut (a key split across deltas) changes the whole: wait for more text.
    if (!this.redact(this.held).startsWith(prefix)) return "";
    this.held = this.held.slice(cut);
    return prefix;
  }

  flush(): string {
    const rest = this.redact(this.held);
    this.held = "";
    return rest;
  }
}

/** The index where the last `n` whitespace-separated words (and what follows them) begin. */
function cutBeforeLastWords(text: string, n: number): number {
  let i = text.length;
  for (let word = 0; word < n; word++) {
    while (i > 0 && /\s/.test(text[i - 1]!)) i--; // trailing space of this word
    while (i > 0 && !/\s/.test(text[i - 1]!)) i--; // the word
  }
  return i;
}

/**
 * An event listener that sees no secrets (PROD-8): text and thinking deltas pass through a
 * StreamRedactor per entity (the rest of a message is released just before its
 * message_complete), and every string in every other event is redacted. For any consumer
 * that forwards events outside the process: the CLI display, HTTP SSE, ACP updates.
 */
export function redactingListener(
  listener: EventListener,
  redactor: Pick<Redactor, "redact" | "longest" | "longestEscaped">,
): EventListener {
  const redact = (t: string) => redactor.redact(t);
  const streams = new Map<string, StreamRedactor>();
  const stream = (entityId: string, type: "text" | "thinking") => {
    const key = `${entityId}\u0000${type}`;
    let s = streams.get(key);
    if (!s)
      streams.set(key, (s = new StreamRedactor(redact, redactor.longest, redactor.longestEscaped)));
    return s;
  };
  return (event: CantripEvent) => {
    if (event.type === "text" || event.type === "thinking") {
      const text = stream(event.entityId, event.type).push(event.text);
      if (text) listener({ ...event, text });
      return;
    }
    if (event.type === "message_complete") {
      for (const type of ["thinking", "text"] as const) {
        const rest = stream(event.entityId, type).flush();
        if (rest) listener({ type, entityId: event.entityId, text: rest });
      }
    }
    listener(redactDeep(event, redact));
  };
}

/**
 * `value` with every string redacted, keys of objects included: a copy where anything changed.
 * Plain objects and arrays in which nothing changes are the same objects (a loom record or an
 * answer without a secret is walked, not copied); any other object (a class instance, which
 * may print itself otherwise) is copied to a plain object of its own enumerable keys, as always.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return redactArray(value, redact) as T;
  const proto: unknown = Object.getPrototypeOf(value);
  const plain = proto === Object.prototype || proto === null;
  const from = value as Record<string, unknown>;
  const keys = Object.keys(from);
  let out: Record<string, unknown> | null = plain ? null : {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = from[k];
    // A key a secret was written into (a model's tool arguments) becomes [REDACTED] too.
    const key = redact(k);
    const r = redactDeep(v, redact);
    if (!out && (key !== k || r !== v)) {
      out = {};
      for (let j = 0; j < i; j++) own(out, keys[j]!, from[keys[j]!]);
    }
    if (out) own(out, key, r);
  }
  return (out ?? value) as T;
}

function redactArray(value: readonly unknown[], redact: (text: string) => string): unknown[] {
  // Not an Array of its own (a subclass): copied, as any object not plain is.
  let out: unknown[] | null = Object.getPrototypeOf(value) === Array.prototype ? null : [];
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    const r = redactDeep(v, redact);
    if (!out && r !== v) out = value.slice(0, i);
    if (out) out.push(r);
  }
  return out ?? (value as unknown[]);
}

/** defineProperty: a key "__proto__" (from JSON) stays an own key, never the prototype. */
function own(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A `JSON.stringify` replacer that redacts as it encodes what `redactDeep` redacts: every string
 * value, and every key of an object (a key a secret was written into stays no secret in an
 * export or an answer). Redacted before encoding, so escaping cannot hide a secret.
 */
export function redactingReplacer(redact: (text: string) => string) {
  return (_key: string, value: unknown): unknown => {
    if (typeof value === "string") return redact(value);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const keys = Object.keys(value);
    if (keys.every((k) => redact(k) === k)) return value;
    const out: Record<string, unknown> = {};
    for (const k of keys)
      // defineProperty: a key "__proto__" (from JSON) stays an own key, never the prototype.
      Object.defineProperty(out, redact(k), {
        value: (value as Record<string, unknown>)[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  };
}

/**
 * `JSON.stringify(value, null, space)` as it may leave the process (PROD-8): every string and
 * key redacted before encoding (`redactDeep`), then the text as written. The one JSON encoding
 * of every exit (the CLI's --json and JSONL, served answers, eval results, OpenTelemetry
 * content…). Redacting the text alone is not enough: encoding escapes a secret's `"` and `\` once
 * more, so a value that holds the secret as JSON text quoted three times is written with it
 * quoted four times, a form the redactor does not know. The value is data (a class instance is
 * written as its own enumerable keys, as `redactDeep` copies it); walked, then encoded by
 * JSON.stringify's own path — a replacer function would be called for every value (issue 40: a
 * served answer's CPU). `undefined` where JSON.stringify gives undefined.
 */
export function redactedJson(
  value: unknown,
  redact: (text: string) => string,
  space?: number,
): string {
  const text = JSON.stringify(redactDeep(value, redact), null, space) as string | undefined;
  return (text === undefined ? text : redact(text)) as string;
}

/** A result as printed: a string as it is, anything else as its JSON; redacted either way. */
export function redactedText(
  value: unknown,
  redact: (text: string) => string,
  space?: number,
): string {
  return typeof value === "string" ? redact(value) : redactedJson(value, redact, space);
}
