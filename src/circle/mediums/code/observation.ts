import type { GateCallRecord } from "../../gate.js";
import type { EvalOutput, ValueView } from "./sandbox.js";

/** Values up to this many characters are shown whole; longer ones as a summary (§4.6). */
export const INLINE_CHARS = 500;
/** Characters of a long value shown in its summary. */
export const PREVIEW_CHARS = 150;
/** Console output shown per run; the rest is counted, not shown. */
export const CONSOLE_CHARS = 4000;
const ARGUMENT_CHARS = 120;
const STACK_LINES = 12;

/**
 * The viewport principle (§4.6): what goes back to the LLM is metadata — type, size and a short
 * preview — for anything large, so the entity works on data through code instead of reading it.
 */
export function summarize(
  text: string,
  what: { type?: string; size?: number; chars?: number } = {},
): string {
  const chars = what.chars ?? text.length;
  if (chars <= INLINE_CHARS) return text;
  const size =
    what.size === undefined
      ? ""
      : what.type === "array"
        ? `, ${what.size} items`
        : what.type === "string"
          ? ""
          : `, ${what.size} keys`;
  const type = what.type ? `${what.type}${size}, ` : "";
  return `[Result: ${type}${chars} chars] ${JSON.stringify(text.slice(0, PREVIEW_CHARS))}…`;
}

function gateLine(r: GateCallRecord, i: number): string {
  const args =
    r.arguments.length > ARGUMENT_CHARS ? `${r.arguments.slice(0, ARGUMENT_CHARS)}…` : r.arguments;
  const result = r.is_error ? `error: ${summarize(r.result)}` : summarize(r.result);
  return `  ${i + 1}. ${r.gate_name}(${args}) → ${result}`;
}

function valueLine(v: ValueView): string {
  return `result: ${summarize(v.text, v)}`;
}

/**
 * One run's observation as the entity reads it: every gate call in order (CIRCLE-4, CIRCLE-7),
 * then the console, then the last value or the error with its stack (CIRCLE-5).
 */
export function renderObservation(records: readonly GateCallRecord[], out: EvalOutput): string {
  const parts: string[] = [];
  if (records.length) parts.push(["gates:", ...records.map(gateLine)].join("\n"));
  if (out.console) {
    const shown =
      out.console.length > CONSOLE_CHARS ? out.console.slice(0, CONSOLE_CHARS) : out.console;
    const hidden = out.console.length - shown.length + out.consoleDropped;
    parts.push(
      `console:\n${shown.replace(/\n$/, "")}${hidden > 0 ? `\n… [${hidden} more console chars not shown]` : ""}`,
    );
  }
  if (out.error) {
    const lines = out.error.stack.trim().split("\n");
    const stack =
      lines.length > STACK_LINES
        ? [...lines.slice(0, STACK_LINES), `    … ${lines.length - STACK_LINES} more frames`].join(
            "\n",
          )
        : lines.join("\n");
    parts.push(`error: ${out.error.name}: ${out.error.message}${stack ? `\n${stack}` : ""}`);
  } else if (out.stopped === "done") {
    parts.push("done: the answer was submitted");
  } else if (out.value) {
    parts.push(valueLine(out.value));
  }
  return parts.length
    ? parts.join("\n")
    : "(no output: nothing was printed and the last expression was undefined)";
}
