/** The CLI's entry: our argv conventions (src/cli/argv.ts), then oclif. */
import { execute as oclifExecute } from "@oclif/core/execute";
import { checkArgv, type CommandShape } from "../cli/argv.js";
import { EXIT } from "../cli/io.js";

export async function executeWith(
  commands: Record<string, CommandShape>,
  options: { dir: string },
): Promise<unknown> {
  const checked = checkArgv(process.argv.slice(2), commands);
  if ("error" in checked) {
    process.stderr.write(`Error: ${checked.error}`);
    process.exitCode = EXIT.invalid;
    return undefined;
  }
  return oclifExecute({ ...options, args: checked.args });
}
