import type { GateCallRecord } from "../../gate.js";
import type { ErrorView, EvalOutput } from "../../../sandbox/index.js";

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

function consoleSection(out: EvalOutput): string {
  const shown =
    out.console.length > CONSOLE_CHARS ? out.console.slice(0, CONSOLE_CHARS) : out.console;
  const hidden = out.console.length - shown.length + out.consoleDropped;
  const text = shown.endsWith("\n") ? shown.slice(0, -1) : shown;
  return `console:\n${text}${hidden > 0 ? `\n… [${hidden} more console chars not shown]` : ""}`;
}

function errorSection(error: ErrorView): string {
  const lines = error.stack.trim().split("\n");
  const stack =
    lines.length > STACK_LINES
      ? [...lines.slice(0, STACK_LINES), `    … ${lines.length - STACK_LINES} more frames`].join(
          "\n",
        )
      : lines.join("\n");
  return `error: ${error.name}: ${error.message}${stack ? `\n${stack}` : ""}`;
}

/** The run's end: its error, the submitted answer, or the value of the last expression. */
function resultSection(out: EvalOutput): string {
  if (out.error) return errorSection(out.error);
  if (out.stopped === "done") return "done: the answer was submitted";
  return out.value ? `result: ${summarize(out.value.text, out.value)}` : "";
}

/**
 * One run's observation as the entity reads it: every gate call in order (CIRCLE-4, CIRCLE-7),
 * then the console, then the last value or the error with its stack (CIRCLE-5).
 */
export function renderObservation(records: readonly GateCallRecord[], out: EvalOutput): string {
  // Built as one string, section by section: this runs on every turn.
  let text = records.length ? "gates:" : "";
  for (let i = 0; i < records.length; i++) text += `\n${gateLine(records[i]!, i)}`;
  if (out.console) text += (text && "\n") + consoleSection(out);
  const last = resultSection(out);
  if (last) text += (text && "\n") + last;
  return text || "(no output: nothing was printed and the last expression was undefined)";
}
