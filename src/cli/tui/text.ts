/**
 * Text made safe and short for the terminal UI: what a model or a gate wrote can hold escape
 * sequences that would move the cursor or recolour the screen, so every control character but
 * the line break is shown escaped (as the approval prompt does, approver.ts); long values are
 * folded to a few lines, the rest counted.
 */
import { escapeControls } from "../approver.js";

/** Text with its line breaks kept, tabs as spaces and every other control escaped. */
export function safeText(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => escapeControls(line.replace(/\t/g, "  ")))
    .join("\n");
}

/** One line of at most `max` characters (line breaks escaped), with an ellipsis when cut. */
export function oneLine(text: string, max: number): string {
  // Escaped from a prefix only: a 10 MB argument costs what a line of it does.
  const line = escapeControls(text.slice(0, max + 1));
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}

/** Lines and characters of a turn opened whole (Ctrl-O): more would stall the terminal. */
export const WHOLE_LINES = 200;
export const WHOLE_CHARS = 8_000;

/**
 * At most `lines` lines and `chars` characters of `text`; `more` says what was left out
 * (empty when nothing was). Only the part shown is escaped: a flood costs what a screen does.
 */
export function fold(text: string, lines: number, chars: number): { shown: string; more: string } {
  const head = text.slice(0, chars + 1);
  const all = safeText(head).split("\n");
  let shown = all.slice(0, lines).join("\n");
  let cut = all.length > lines || head.length < text.length;
  if (shown.length > chars) {
    shown = `${shown.slice(0, chars)}…`;
    cut = true;
  }
  if (!cut) return { shown, more: "" };
  const hiddenLines = Math.max(0, lineCount(text) - lines);
  const size = text.length > chars ? ` (${text.length} characters in all)` : "";
  const what = hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? "" : "s"}` : "cut";
  return { shown, more: `${what}${size}` };
}

/** Lines of `text` (a line break ends one), counted without splitting it. */
function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Milliseconds as the UI shows a duration: `850 ms`, `3.2 s`, `2 min 5 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** The code of a code-medium or bash call, when its arguments carry it: shown as code. */
export function codeOf(args: string): string | undefined {
  // Read once per arguments (a block is drawn again at every change); the last few kept.
  const known = codes.get(args);
  if (known !== undefined || codes.has(args)) return known;
  const code = parseCode(args);
  if (codes.size >= 64) codes.delete(codes.keys().next().value!);
  codes.set(args, code);
  return code;
}

const codes = new Map<string, string | undefined>();

function parseCode(args: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      const o = parsed as Record<string, unknown>;
      const code = o["code"] ?? o["command"];
      if (typeof code === "string" && Object.keys(o).length === 1) return code;
    }
  } catch {
    // not JSON: shown as written
  }
  return undefined;
}
