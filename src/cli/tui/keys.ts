/**
 * The keys of the terminal UI (issue 42), listed in KEYS (what `/help` shows) and handled by
 * onKey: each key read is one call, with the prompt's state in a KeyState the App keeps.
 */
import type { Key } from "ink";
import type { SessionModel } from "./model.js";
import {
  atEnd,
  deleteBefore,
  deleteUnder,
  EMPTY_PROMPT,
  insert,
  killToEnd,
  killToStart,
  killWord,
  move,
  type PromptState,
} from "./prompt-edit.js";

export interface Controls {
  /** Sends an intent (the session records it in the model and casts). */
  send(intent: string): void;
  /** Stops the running cast; the session goes on. */
  cancel(): void;
  /** Answers the approval asked. */
  answer(word: "y" | "n" | "a"): void;
  /** Ends the session. */
  end(): void;
}

export const KEYS: [string, string][] = [
  ["Enter", "send the intent"],
  ["Alt-Enter or Ctrl-J", "a new line in the intent"],
  ["Left / Right, Home / End", "move in the intent (Ctrl-A / Ctrl-E: the line's start / end)"],
  ["Ctrl-U / Ctrl-K / Ctrl-W", "delete to the line's start / to its end / the word before"],
  ["Up / Down", "earlier intents"],
  ["Esc or Ctrl-C", "stop the running cast (the session goes on)"],
  ["Ctrl-C twice, or Ctrl-D", "end the session (at an idle, empty prompt)"],
  ["Ctrl-D with text typed", "delete the character under the cursor"],
  ["PgUp / PgDn", "scroll the conversation"],
  ["Tab / Shift-Tab", "select a turn"],
  ["Ctrl-T", "collapse the selected turn to its header line (again: expand it)"],
  ["Ctrl-O", "open the selected turn whole (again: fold it)"],
  ["y / n / a / f", "approval: allow once / deny / allow for the session / full arguments"],
  ["/help", "this list"],
];

/** What the keys read and change; refs, so keys between two renders see each other's work. */
export interface KeyState {
  model: SessionModel;
  controls: Controls;
  /** The prompt's text and cursor. */
  prompt: () => PromptState;
  setPrompt: (next: PromptState | ((v: PromptState) => PromptState)) => void;
  history: string[];
  /** How far up the history Up went (0: the new line). */
  back: { current: number };
  idleInterrupts: { current: number };
  selected: number | undefined;
  setSelected: (key: number | undefined) => void;
  toggleOpen: (key: number) => void;
  toggleCollapsed: (key: number) => void;
  scrollBy: (lines: number) => void;
  /** Lines of a page (PgUp). */
  page: number;
}

export function onKey(s: KeyState, input: string, key: Key): void {
  if ((key.ctrl && input === "c") || key.escape) return interrupt(s, key.escape);
  s.idleInterrupts.current = 0;
  const approval = s.model.approval;
  if (approval) {
    const word = input.toLowerCase();
    if (word === "y" || word === "n" || word === "a") s.controls.answer(word);
    else if (word === "f") s.model.ask({ ...approval, full: !approval.full });
    return;
  }
  if (key.ctrl && input === "d") {
    if (s.prompt().text) s.setPrompt(deleteUnder);
    else if (!s.model.running) s.controls.end();
    return;
  }
  if (navigate(s, input, key) || edit(s, input, key)) return;
  if ((key.return && key.meta) || (key.ctrl && input === "j") || input === "\n") {
    s.setPrompt((v) => insert(v, "\n"));
    return;
  }
  // Several keys in one read (a paste, a script): line breaks inside are new lines, a final
  // Enter sends. Keys typed before the UI took the terminal arrive as one read too, their
  // Enter turned into a line feed by the terminal's cooked mode: that final line feed sends.
  const typed = input.length > 1 && /[\r\n]$/.test(input) ? input.slice(0, -1) : undefined;
  if (typed !== undefined) s.setPrompt((v) => insert(v, typed.replace(/\r\n?/g, "\n")));
  if (key.return || typed !== undefined) return submit(s);
  // Ink reads the Backspace key's DEL (0x7f) as `delete`, as it reads the Delete key: both erase
  // the character before the cursor (Ctrl-D erases the one under it).
  if (key.backspace || key.delete) return s.setPrompt(deleteBefore);
  if (key.ctrl || key.meta || !input) return;
  s.setPrompt((v) => insert(v, input.replace(/\r\n?/g, "\n")));
}

/** The cursor's moves and the kills; true when the key was one of them. */
function edit(s: KeyState, input: string, key: Key): boolean {
  const ctrl = key.ctrl ? input : "";
  if (key.leftArrow) s.setPrompt((v) => move(v, "left"));
  else if (key.rightArrow) s.setPrompt((v) => move(v, "right"));
  else if (key.home || ctrl === "a") s.setPrompt((v) => move(v, "home"));
  else if (key.end || ctrl === "e") s.setPrompt((v) => move(v, "end"));
  else if (ctrl === "u") s.setPrompt(killToStart);
  else if (ctrl === "k") s.setPrompt(killToEnd);
  else if (ctrl === "w") s.setPrompt(killWord);
  else return false;
  return true;
}

/** Ctrl-C or Esc: stops the running cast; at an idle prompt, Ctrl-C twice ends the session. */
function interrupt(s: KeyState, escape: boolean): void {
  if (s.model.running) return s.controls.cancel();
  if (escape) return s.setSelected(undefined);
  if (s.prompt().text) return s.setPrompt(EMPTY_PROMPT);
  if (s.idleInterrupts.current >= 1) return s.controls.end();
  s.idleInterrupts.current = 1;
  s.model.notice("(Ctrl-C again, or Ctrl-D, to end the session)");
}

/** PgUp/PgDn, Tab, Ctrl-O, Ctrl-T, Up/Down; true when the key was one of them. */
function navigate(s: KeyState, input: string, key: Key): boolean {
  if (key.pageUp || key.pageDown) s.scrollBy(key.pageUp ? s.page : -s.page);
  else if (key.tab) {
    const turns = s.model.turns();
    if (!turns.length) return true;
    const at = turns.findIndex((t) => t.key === s.selected);
    const next = at < 0 ? turns.length - 1 : at + (key.shift ? -1 : 1);
    s.setSelected(turns[(next + turns.length) % turns.length]!.key);
  } else if (key.ctrl && (input === "o" || input === "t")) {
    const target = s.selected ?? s.model.turns().at(-1)?.key;
    if (target !== undefined) (input === "o" ? s.toggleOpen : s.toggleCollapsed)(target);
  } else if (key.upArrow || key.downArrow) {
    const { history, back } = s;
    back.current = Math.min(history.length, Math.max(0, back.current + (key.upArrow ? 1 : -1)));
    s.setPrompt(atEnd(back.current === 0 ? "" : history[history.length - back.current]!));
  } else return false;
  return true;
}

/** Enter: /help, or the intent sent (unless a cast runs). */
function submit(s: KeyState): void {
  const intent = s.prompt().text.trim();
  if (!intent) return;
  if (intent === "/help") {
    s.setPrompt(EMPTY_PROMPT);
    s.scrollBy(-Infinity);
    s.model.notice(KEYS.map(([k, what]) => `${k.padEnd(24)} ${what}`).join("\n"));
    return;
  }
  if (s.model.running) {
    s.model.notice("a cast is running: Esc or Ctrl-C stops it");
    return;
  }
  s.setPrompt(EMPTY_PROMPT);
  s.back.current = 0;
  s.scrollBy(-Infinity);
  s.history.push(intent);
  s.controls.send(intent);
}
