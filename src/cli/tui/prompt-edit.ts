/**
 * The prompt's text and where its cursor is, and the edits the keys make (keys.ts): insert at
 * the cursor, delete before or under it, move by a character, to a line's start or end, and the
 * readline kills (to the line's start, to its end, the word before). The cursor counts UTF-16
 * units but never stops inside a surrogate pair, so an emoji moves and deletes as one character.
 */
export interface PromptState {
  readonly text: string;
  /** 0 … text.length: the place before which a typed character goes. */
  readonly cursor: number;
}

export const EMPTY_PROMPT: PromptState = { text: "", cursor: 0 };

/** The state with `text` whole and the cursor at its end (history, a cleared prompt). */
export const atEnd = (text: string): PromptState => ({ text, cursor: text.length });

const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The place one character before `at` (a surrogate pair counts once). */
function before(text: string, at: number): number {
  if (at <= 0) return 0;
  return at >= 2 && isLow(text.charCodeAt(at - 1)) && isHigh(text.charCodeAt(at - 2))
    ? at - 2
    : at - 1;
}

/** The place one character after `at`. */
function after(text: string, at: number): number {
  if (at >= text.length) return text.length;
  return isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? at + 2 : at + 1;
}

const lineStart = (text: string, at: number) => text.lastIndexOf("\n", at - 1) + 1;
function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end < 0 ? text.length : end;
}

/** `typed` inserted at the cursor; the cursor after it. */
export function insert(s: PromptState, typed: string): PromptState {
  return {
    text: s.text.slice(0, s.cursor) + typed + s.text.slice(s.cursor),
    cursor: s.cursor + typed.length,
  };
}

/** The text between `from` and `to` removed; the cursor at `from`. */
function cut(s: PromptState, from: number, to: number): PromptState {
  return from >= to ? s : { text: s.text.slice(0, from) + s.text.slice(to), cursor: from };
}

/** Backspace: the character before the cursor. */
export const deleteBefore = (s: PromptState) => cut(s, before(s.text, s.cursor), s.cursor);
/** The character under the cursor (Ctrl-D with text typed). */
export const deleteUnder = (s: PromptState) => cut(s, s.cursor, after(s.text, s.cursor));
/** Ctrl-U: from the line's start to the cursor. */
export const killToStart = (s: PromptState) => cut(s, lineStart(s.text, s.cursor), s.cursor);
/** Ctrl-K: from the cursor to the line's end. */
export const killToEnd = (s: PromptState) => cut(s, s.cursor, lineEnd(s.text, s.cursor));

/** Ctrl-W: the word before the cursor, with the spaces between it and the cursor. */
export function killWord(s: PromptState): PromptState {
  let from = s.cursor;
  while (from > 0 && /[ \t]/.test(s.text[from - 1]!)) from--;
  while (from > 0 && !/\s/.test(s.text[from - 1]!)) from--;
  return cut(s, from, s.cursor);
}

export type Move = "left" | "right" | "home" | "end";

export function move(s: PromptState, where: Move): PromptState {
  const { text, cursor } = s;
  const to =
    where === "left"
      ? before(text, cursor)
      : where === "right"
        ? after(text, cursor)
        : where === "home"
          ? lineStart(text, cursor)
          : lineEnd(text, cursor);
  return to === cursor ? s : { text, cursor: to };
}
