import type { CommandResult } from "./run-command.js";

/**
 * A command's observation: stdout, stderr (each with a marker when cut) and how it ended. A
 * non-zero exit, a kill or a timeout is an error observation.
 */
export function renderCommand(
  r: CommandResult,
  limits: { maxOutputKb: number; maxCommandMs: number },
): string {
  const parts: string[] = [];
  if (r.stdout) parts.push(r.stdout.replace(/\n$/, ""));
  if (r.stdoutCut) parts.push(`[stdout cut at ${limits.maxOutputKb} KB (max_output_kb)]`);
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, "")}`);
  if (r.stderrCut) parts.push(`[stderr cut at ${limits.maxOutputKb} KB (max_output_kb)]`);
  parts.push(ending(r, limits.maxCommandMs));
  return parts.join("\n");
}

function ending(r: CommandResult, maxCommandMs: number): string {
  if (r.stopped) return `[stopped: ${r.stopped}]`;
  if (r.timedOut)
    return `[killed after ${maxCommandMs} ms (max_command_ms); the command and everything it started were ended]`;
  if (r.exitCode === null) return `[killed by ${r.signal ?? "a signal"}]`;
  return `[exit ${r.exitCode}]`;
}

/** A failed command in a line: how it ended, then its first line of stderr, if any. */
export function commandError(
  r: CommandResult,
  limits: { maxOutputKb: number; maxCommandMs: number },
): string {
  const said = r.stderr.trim().split("\n", 1)[0];
  return said ? `${ending(r, limits.maxCommandMs)} ${said}` : ending(r, limits.maxCommandMs);
}

export const commandFailed = (r: CommandResult): boolean =>
  r.stopped === undefined && (r.timedOut || r.exitCode !== 0);
