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
  ) {}

  push(text: string): string {
    this.held += text;
    const cut = cutBeforeLastWords(
      this.held.slice(0, Math.max(0, this.held.length - this.hold)),
      2,
    );
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

/** The subset of events the live display reads. */
type DisplayEvent =
  { type: "text"; text: string } | { type: "message_complete" } | { type: string };

/**
 * The live display of `spell run` on stderr: the entity's text as it arrives (redacted in
 * flight), then each turn's progress line. Thinking is recorded, not shown.
 */
export function liveDisplay<E extends DisplayEvent>(
  write: (text: string) => void,
  redactor: { redact(text: string): string; readonly longest: number },
  line: (event: E) => string,
): (event: E) => void {
  const redact = (t: string) => redactor.redact(t);
  const stream = new StreamRedactor(redact, redactor.longest);
  let open = false; // text written on the current line
  const out = (text: string) => {
    if (!text) return;
    write(text);
    open = !text.endsWith("\n");
  };
  return (event) => {
    if (event.type === "text") {
      out(stream.push((event as { text: string }).text));
      return;
    }
    if (event.type === "message_complete") {
      out(stream.flush());
      if (open) out("\n");
      return;
    }
    const text = line(event);
    if (text) out(redact(text));
  };
}
