/**
 * The intent of `spell run`: `--intent` or the spell's, with `--inputs file.json` and
 * `--input key=value` checked against the spell's `inputs:` and put into it (issue 26). A bad
 * input is the user's to fix (exit 3), said before anything is cast.
 */
import { readFileSync } from "node:fs";
import { ConfigError, errorMessage, SpellbookError } from "../core/errors.js";
import { isJsonObject } from "../core/json.js";
import { castIntent, parseInputPairs } from "../spell/inputs.js";
import type { LoadedSpell } from "../spell/index.js";
import { displayPath, EXIT, type CliIO } from "./io.js";
import type { RunFlags } from "./run-flags.js";

export async function runIntent(
  loaded: LoadedSpell,
  flags: Pick<RunFlags, "intent" | "input" | "inputs">,
  io: CliIO,
): Promise<string | number> {
  try {
    const fromFile = flags.inputs === undefined ? undefined : readInputs(flags.inputs, io);
    const pairs = flags.input?.length ? parseInputPairs(loaded.spell.inputs, flags.input) : {};
    const given = fromFile || flags.input?.length ? { ...fromFile, ...pairs } : undefined;
    return await castIntent(loaded.spell, {
      ...(given ? { inputs: given } : {}),
      ...(flags.intent !== undefined ? { intent: flags.intent } : {}),
    });
  } catch (err) {
    if (err instanceof SpellbookError && err.code === "missing_intent") {
      io.stderr(`${loaded.file}: no intent: give --intent "..." or write intent: in the spell\n`);
      return EXIT.invalid;
    }
    if (err instanceof SpellbookError && err.code === "bad_input") {
      io.stderr(loaded.redactor.redact(`${loaded.file}: ${err.message}\n`));
      return EXIT.invalid;
    }
    throw err;
  }
}

function readInputs(file: string, io: CliIO): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(displayPath(io.cwd, file), "utf8"));
  } catch (err) {
    throw new ConfigError("bad_input", `--inputs ${file}: ${errorMessage(err)}`);
  }
  if (!isJsonObject(value))
    throw new ConfigError("bad_input", `--inputs ${file}: a JSON object of inputs`);
  return value;
}
