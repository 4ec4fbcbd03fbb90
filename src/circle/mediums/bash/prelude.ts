/**
 * Gates whose names bash already uses: `done` is a reserved word and `read` a builtin, so the
 * gate commands on PATH would never run as written. The script a command runs in makes them work:
 * - `done ARG` where a command starts (a loop's `done` is never followed by a word) becomes the gate;
 * - `read PATH` (one argument that is no variable name, or nothing piped in) calls the gate; every
 *   other `read` is the builtin, so `… | while read line` keeps working;
 * - `gate NAME ARGS…` calls any gate, whatever its name.
 */
const DONE_AS_COMMAND =
  /(^|[\n;&|(]|\b(?:then|do|else)\s)(\s*)done(?=[ \t]+(?!\d*[<>])[^\s;&|)<>#])/g;

export function withGateWords(command: string): string {
  return command.replace(DONE_AS_COMMAND, "$1$2command done");
}

/**
 * The shell prelude: a pids limit; an address-space limit where no memory cgroup holds the
 * command (`memoryMb`: each process at most that much; the hard limit too, which nothing in the
 * sandbox may raise; the command never runs if it cannot be set); and `read` routed to the gate
 * when it is one.
 */
export function prelude(
  maxProcesses: number,
  memoryMb: number | undefined,
  gates: readonly string[],
): string {
  const lines = [`ulimit -u ${maxProcesses} 2>/dev/null`];
  if (memoryMb !== undefined) lines.push(`ulimit -v ${Math.floor(memoryMb * 1024)} || exit 125`);
  if (gates.includes("read"))
    lines.push(
      'read() { if [ $# -eq 1 ] && { ! [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || [ "$(readlink /proc/self/fd/0)" = /dev/null ]; }; then gate read "$1"; else builtin read "$@"; fi; }',
    );
  return lines.join("\n") + "\n";
}
