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
  const line = escapeControls(text);
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}

/**
 * At most `lines` lines and `chars` characters of `text`; `more` says what was left out
 * (empty when nothing was).
 */
export function fold(text: string, lines: number, chars: number): { shown: string; more: string } {
  const all = safeText(text).split("\n");
  let shown = all.slice(0, lines).join("\n");
  if (shown.length > chars) shown = `${shown.slice(0, chars)}…`;
  const hiddenLines = all.length - Math.min(all.length, lines);
  const cut = shown.length < safeText(text).length;
  if (!cut) return { shown, more: "" };
  return {
    shown,
    more: hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? "" : "s"}` : "cut",
  };
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
