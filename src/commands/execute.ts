/** The CLI's entry: our argv conventions (src/cli/argv.ts), then oclif. */
import { execute as oclifExecute } from "@oclif/core/execute";
import { settings } from "@oclif/core/settings";
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
  // The CLI is a bundle: there is no TypeScript source for oclif to run instead. Left on, oclif
  // does so under NODE_ENV=test or development (every test run): it loads the TypeScript
  // compiler to read tsconfig.json — +15 MB of heap and ~0.6 s on each start for nothing.
  settings.enableAutoTranspile = false;
  return oclifExecute({ ...options, args: checked.args });
}
