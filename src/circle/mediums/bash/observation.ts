import type { CommandResult } from "./run-command.js";

/** The wards a command's observation names. */
export interface CommandLimits {
  maxOutputKb: number;
  maxCommandMs: number;
  maxMemoryMb: number;
}

/**
 * A command's observation: stdout, stderr (each with a marker when cut) and how it ended. A
 * non-zero exit, a kill, a timeout or a process killed past max_memory_mb is an error observation.
 */
export function renderCommand(r: CommandResult, limits: CommandLimits): string {
  const parts: string[] = [];
  if (r.stdout) parts.push(r.stdout.replace(/\n$/, ""));
  if (r.stdoutCut) parts.push(`[stdout cut at ${limits.maxOutputKb} KB (max_output_kb)]`);
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, "")}`);
  if (r.stderrCut) parts.push(`[stderr cut at ${limits.maxOutputKb} KB (max_output_kb)]`);
  parts.push(ending(r, limits));
  return parts.join("\n");
}

function ending(r: CommandResult, limits: CommandLimits): string {
  if (r.stopped) return `[stopped: ${r.stopped}]`;
  if (r.timedOut)
    return `[killed after ${limits.maxCommandMs} ms (max_command_ms); the command and everything it started were ended]`;
  const how = r.exitCode === null ? `killed by ${r.signal ?? "a signal"}` : `exit ${r.exitCode}`;
  if (r.oomKills)
    return `[${how}; out of memory: ${r.oomKills === 1 ? "a process was" : `${r.oomKills} processes were`} killed at ${limits.maxMemoryMb} MiB (max_memory_mb: the command's processes, /tmp and /dev/shm together)]`;
  return `[${how}]`;
}

/** A failed command in a line: how it ended, then its first line of stderr, if any. */
export function commandError(r: CommandResult, limits: CommandLimits): string {
  const said = r.stderr.trim().split("\n", 1)[0];
  return said ? `${ending(r, limits)} ${said}` : ending(r, limits);
}

export const commandFailed = (r: CommandResult): boolean =>
  r.stopped === undefined && (r.timedOut || r.exitCode !== 0 || (r.oomKills ?? 0) > 0);
