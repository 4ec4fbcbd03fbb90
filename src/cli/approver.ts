/**
 * Who answers a spell's approval questions on the command line (issue 25): `--yes` approves
 * every call, `--approve gate=NAME[,gate=GLOB…]` the gates named; any other question goes to
 * the terminal when stdin and stderr are one (once / always for this cast / deny, arguments
 * redacted), else it is denied (no approver).
 */
import type { Approver, ApprovalRequest } from "../core/approval.js";
import { NO_APPROVER } from "../core/approval.js";
import { ConfigError } from "../core/errors.js";
import { globMatch } from "../circle/approvals.js";

export interface ApproverFlags {
  /** Approve every call of this run. */
  yes?: boolean | undefined;
  /** `gate=write,gate=notes_*`: the gates approved for this run. */
  approve?: string | undefined;
}

/** Asks one question on the terminal; null when it closed (or the question was withdrawn). */
export type Question = (text: string, signal: AbortSignal) => Promise<string | null>;

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
    const answer = await question(promptText(request, redact), request.signal);
    if (answer === null)
      return { allow: false, by: "terminal", reason: "the terminal closed before an answer" };
    const word = answer.trim().toLowerCase();
    if (word === "a" || word === "always") {
      always.add(request.gate);
      return { allow: true, by: "terminal" };
    }
    if (word === "y" || word === "yes") return { allow: true, by: "terminal" };
    return { allow: false, by: "terminal", reason: "denied by the user" };
  };
}

const SHOWN = 500;

function promptText(request: ApprovalRequest, redact: (text: string) => string): string {
  const args = redact(request.arguments);
  const shown = args.length > SHOWN ? `${args.slice(0, SHOWN)}… (${args.length} chars)` : args;
  const who = request.depth > 0 ? ` (child entity, depth ${request.depth})` : "";
  return (
    `\napproval needed: ${request.gate}${who} — approve: ${request.rule}\n` +
    `  arguments: ${shown}\n` +
    `  allow? [y] once · [a] always for this cast · [n] deny: `
  );
}

/** A question on the process's terminal, or undefined when stdin or stderr is not one. */
export function terminalQuestion(): Question | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
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
