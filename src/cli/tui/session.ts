/**
 * Opens the terminal UI of a session (issue 42) on the process's terminal: the alternate
 * screen, Ink drawing App (cli/tui/app.ts) from a SessionModel fed by the entity's events, and the
 * approval questions answered in place. Loaded only when the UI opens (src/cli/tui-load.ts):
 * Ink and React cost start-up time no other command pays.
 */
import { render } from "ink";
import { createElement as h } from "react";
import type { ApprovalRequest } from "../../core/approval.js";
import type { CantripEvent } from "../../core/events.js";
import { decidingFields, escapeControls } from "../approver.js";
import { SessionModel, type ApprovalView, type StatusInfo } from "./model.js";
import { App } from "./app.js";

/** How a cast ended, as the UI tells it (already redacted). */
export type CastOutcome =
  | {
      text: string;
      summary: string;
      usage: { promptTokens: number; completionTokens: number; costUsd?: number | undefined };
    }
  | { error: string };

export interface TuiOptions {
  status: StatusInfo;
  /** A turn as the loom recorded it, redacted (a code turn's code and output). */
  recorded?: (turnId: string) => { utterance: string; observation: string } | undefined;
  /** Subscribes to the entity's events, redacted; returns the unsubscribe. */
  subscribe: (listener: (event: CantripEvent) => void) => () => void;
  /** One intent to the entity: resolves when the cast ends (never rejects). */
  cast: (intent: string, signal: AbortSignal) => Promise<CastOutcome>;
  redact: (text: string) => string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /**
   * The process's stderr: while the UI is open, what is written to it (a warning, a retry
   * notice) becomes a notice line of the UI instead of garbling the screen — when it is a
   * terminal (the same screen); redirected elsewhere, it goes there as always.
   */
  stderr?: Pick<NodeJS.WriteStream, "write" | "isTTY">;
}

export interface TuiSession {
  /** Asks an approval in the dialog: "y", "n" or "a"; null when it was withdrawn. */
  ask: (request: ApprovalRequest, signal: AbortSignal) => Promise<string | null>;
  /** Resolves when the user ended the session (the screen is restored by then). */
  closed: Promise<void>;
}

const ALT_SCREEN_ON = "\u001b[?1049h";
const ALT_SCREEN_OFF = "\u001b[?1049l";
const CLEAR_SCREEN = "\u001b[2J\u001b[H";

export function openTui(options: TuiOptions): TuiSession {
  const model = new SessionModel(options.status, options.recorded);
  const off = options.subscribe((e) => model.event(e));
  const dialog = approvalDialog(model, options.redact);
  let running: AbortController | undefined;
  let cast: Promise<void> = Promise.resolve();
  const controls = {
    send(intent: string) {
      model.intent(options.redact(intent));
      const controller = (running = new AbortController());
      cast = options.cast(intent, controller.signal).then((outcome) => {
        running = undefined;
        model.castEnded(outcome);
      });
    },
    cancel() {
      if (!running) return;
      model.notice("interrupted: stopping the current cast (the session goes on)");
      running.abort("interrupted");
    },
    answer: dialog.answer,
    end() {
      running?.abort("interrupted");
      instance.unmount();
    },
  };
  const unroute = options.stderr?.isTTY
    ? routeStderr(options.stderr, (line) => model.notice(options.redact(line)))
    : undefined;
  options.stdout.write(ALT_SCREEN_ON);
  // A resize: the screen cleared and drawn whole (the terminal may have moved what it held).
  const redraw = () => {
    options.stdout.write(CLEAR_SCREEN);
    instance.clear();
  };
  const instance = render(h(App, { model, controls, redraw }), {
    stdin: options.stdin,
    stdout: options.stdout,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  // Closed once the screen is restored and no cast runs (the loom has every turn by then).
  const closed = instance
    .waitUntilExit()
    .catch(() => undefined)
    .then(() => cast)
    .finally(() => {
      off();
      options.stdout.write(ALT_SCREEN_OFF);
      unroute?.();
    });
  return { ask: dialog.ask, closed };
}

/**
 * Routes what is written to `stream` to `notice`, a line at a time (a line not ended is held
 * until its end, or until the route is undone); returns the undo, which puts `write` back.
 * Text only: nothing reaches the stream meanwhile, so nothing garbles the screen.
 */
export function routeStderr(
  stream: Pick<NodeJS.WriteStream, "write">,
  notice: (line: string) => void,
): () => void {
  const original = stream.write;
  let held = "";
  const write = (chunk: unknown, encoding?: unknown, done?: unknown): boolean => {
    held += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    const lines = held.split("\n");
    held = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) notice(line);
    const callback = typeof encoding === "function" ? encoding : done;
    if (typeof callback === "function") process.nextTick(callback);
    return true;
  };
  stream.write = write;
  return () => {
    stream.write = original;
    if (held.trim()) notice(held);
    held = "";
  };
}

/** Approval questions shown in the model's dialog, answered by a key (Controls.answer). */
function approvalDialog(model: SessionModel, redact: (text: string) => string) {
  let answering: ((word: string | null) => void) | undefined;
  const ask = (request: ApprovalRequest, signal: AbortSignal): Promise<string | null> =>
    new Promise((resolve) => {
      const settle = (word: string | null) => {
        signal.removeEventListener("abort", withdraw);
        answering = undefined;
        model.ask(undefined);
        resolve(word);
      };
      const withdraw = () => settle(null);
      if (signal.aborted) return resolve(null);
      signal.addEventListener("abort", withdraw, { once: true });
      answering = settle;
      model.ask(approvalView(request, redact));
    });
  return { ask, answer: (word: "y" | "n" | "a") => answering?.(word) };
}

/** The dialog's view of a request: deciding fields whole, everything redacted and escaped. */
export function approvalView(
  request: Pick<ApprovalRequest, "gate" | "rule" | "depth" | "arguments">,
  redact: (text: string) => string,
): ApprovalView {
  return {
    gate: escapeControls(request.gate),
    rule: escapeControls(request.rule),
    depth: request.depth,
    deciding: decidingFields(request.arguments, redact).map(([k, v]) => [k, escapeControls(v)]),
    args: escapeControls(redact(request.arguments)),
    full: false,
  };
}
