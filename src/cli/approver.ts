/**
 * Who answers a spell's approval questions on the command line (issue 25): `--yes` approves
 * every call, `--approve gate=NAME[,gate=GLOB…]` the gates named; any other question goes to
 * the terminal when stdin and stderr are one (once / always for this cast / deny, arguments
 * redacted), else it is denied (no approver).
 */
import type { Approver, ApprovalRequest } from "../core/approval.js";
import { NO_APPROVER } from "../core/approval.js";
import { ConfigError } from "../core/errors.js";
import { redactedText } from "../core/redact-stream.js";
import { globMatch } from "../circle/approvals.js";
import { isTerminal } from "./stdio.js";

export interface ApproverFlags {
  /** Approve every call of this run. */
  yes?: boolean | undefined;
  /** `gate=write,gate=notes_*`: the gates approved for this run. */
  approve?: string | undefined;
}

/** Asks one question on the terminal; null when it closed (or the question was withdrawn). */
export type Question = (
  text: string,
  signal: AbortSignal,
  request?: ApprovalRequest,
) => Promise<string | null>;

/** The gate globs of `--approve`; throws a ConfigError for anything but `gate=PATTERN`. */
export function approvedGates(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(",").map((part) => {
    const m = /^\s*gate=(.+?)\s*$/.exec(part);
    if (!m)
      throw new ConfigError(
        "bad_approve_flag",
        `--approve takes gate=NAME (a name or a glob), comma-separated; got ${JSON.stringify(part)}`,
      );
    return m[1]!;
  });
}

/** The approver of a CLI run; undefined when nobody can answer (every ask is then denied). */
export function cliApprover(
  flags: ApproverFlags,
  question: Question | undefined,
  redact: (text: string) => string,
): Approver | undefined {
  if (flags.yes) return () => ({ allow: true, by: "flag" });
  const gates = approvedGates(flags.approve);
  if (!gates.length && !question) return undefined;
  const always = new Set<string>();
  return async (request) => {
    if (gates.some((g) => globMatch(g, request.gate))) return { allow: true, by: "flag" };
    if (always.has(request.gate)) return { allow: true, by: "terminal" };
    if (!question) return { allow: false, by: "none", reason: NO_APPROVER };
    let full = false;
    for (;;) {
      const answer = await question(promptText(request, redact, full), request.signal, request);
      if (answer === null)
        return { allow: false, by: "terminal", reason: "the terminal closed before an answer" };
      const word = answer.trim().toLowerCase();
      if (word === "f" || word === "full") {
        full = true; // the same question again, with every argument shown
        continue;
      }
      if (word === "a" || word === "always") {
        always.add(request.gate);
        return { allow: true, by: "terminal" };
      }
      if (word === "y" || word === "yes") return { allow: true, by: "terminal" };
      return { allow: false, by: "terminal", reason: "denied by the user" };
    }
  };
}

/** Arguments shown in a question before `[f]` asks for them all. */
const SHOWN = 500;
/** The arguments that decide what a call does: shown first and whole (issue 38). */
const DECIDING = ["path", "url", "command"];

/**
 * The terminal's question. The deciding arguments come first, whole, so 600 characters of notes
 * cannot push a `path` out of sight; every control character (a raw `\r` would move the cursor
 * back over the line), line separator and bidirectional override is escaped, so what is shown is
 * what the model sent; `[f]` shows every argument.
 */
export function promptText(
  request: ApprovalRequest,
  redact: (text: string) => string,
  full = false,
): string {
  const args = redact(request.arguments);
  const shown =
    full || args.length <= SHOWN
      ? args
      : `${args.slice(0, SHOWN)}… (${args.length} chars; [f] shows them all)`;
  const who = request.depth > 0 ? ` (child entity, depth ${request.depth})` : "";
  const deciding = decidingFields(request.arguments, redact)
    .map(([k, v]) => `  ${k}: ${escapeControls(v)}\n`)
    .join("");
  return (
    `\napproval needed: ${escapeControls(request.gate)}${who} — approve: ${escapeControls(request.rule)}\n` +
    deciding +
    `  arguments: ${escapeControls(shown)}\n` +
    `  allow? [y] once · [a] always for this cast · [n] deny · [f] full arguments: `
  );
}

/**
 * `path`, `url` and `command` of a call's arguments, when they are there, as text, redacted (a
 * value that is no string: its strings before it is encoded, then the text).
 */
export function decidingFields(
  encoded: string,
  redact: (text: string) => string,
): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(encoded);
  } catch {
    return [];
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return [];
  const args = parsed as Record<string, unknown>;
  return DECIDING.filter((k) => Object.hasOwn(args, k)).map((k) => {
    const v = args[k];
    return [k, redactedText(v, redact)];
  });
}

/** C0 and C1 controls, DEL, line and paragraph separators, bidirectional marks and overrides. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Text safe to write to a terminal: every control shown as an escape (`\r`, `\u001b`). */
export function escapeControls(text: string): string {
  return text.replace(
    CONTROLS,
    (c) => NAMED[c] ?? `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`,
  );
}

/** A question on the process's terminal, or undefined when stdin or stderr is not one. */
export function terminalQuestion(): Question | undefined {
  // Asked of the fds, not process.stdin.isTTY: reading process.stdin opens a stream on it, in
  // every `spell run` (start-up); Node makes stdin a TTY stream exactly when fd 0 is a terminal.
  // isTerminal loads node:tty (and net) only for an fd that may be one (stdio.ts).
  if (!isTerminal(0) || !isTerminal(2)) return undefined;
  return async (text, signal) => {
    // Loaded on the first question, not with every `spell run` (start-up).
    const { createInterface } = await import("node:readline");
    return new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      let answered = false;
      const close = () => rl.close();
      signal.addEventListener("abort", close, { once: true });
      rl.on("SIGINT", close); // Ctrl-C at the prompt: no answer, the call is denied
      rl.on("close", () => {
        signal.removeEventListener("abort", close);
        if (!answered) resolve(null);
      });
      rl.question(text, (answer) => {
        answered = true;
        resolve(answer);
        rl.close();
      });
    });
  };
}
