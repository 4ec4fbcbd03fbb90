/**
 * How far back a cut looks for the start of the word it would split: longer than any API key or
 * token a sink knows (a longer run is cut this far back, which leaves out any such secret's start).
 */
const WORD_BACK = 512;
/** What a key or token is written with (base64, base64url, hex, `sk-…`, dotted JWTs). */
const WORD = /[A-Za-z0-9._~+/=-]/;

/**
 * A quote of text cut to `max` characters (and an ellipsis) where no redactor is at hand: the
 * word the cut would split is left out whole. The sinks redact a secret they see whole; the
 * first characters of one alone they do not know, so a cut through a secret would keep its
 * start past every redactor. Where a redactor is at hand, redact first, then cut.
 */
export function cutQuote(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  if (WORD.test(text[end]!)) {
    const floor = Math.max(0, max - WORD_BACK);
    while (end > floor && WORD.test(text[end - 1]!)) end--;
  }
  return `${text.slice(0, end).trimEnd()}…`;
}

/**
 * A JSON.parse error's message without the text it quotes: V8 quotes about ten characters of the
 * input (`Unexpected token 'x', "x sk-test-a"... is not valid JSON`), a cut no redactor can undo.
 */
export function withoutParsedQuote(message: string): string {
  return message.replace(/, ".*"(?:\.\.\.)? is not valid JSON/gs, " (not valid JSON)");
}
