import { readFileSync } from "node:fs";
import { extname, isAbsolute, resolve } from "node:path";
import { parse } from "yaml";
import { ConfigError, unreadableBecause } from "../core/errors.js";
import { isJsonObject } from "../core/json.js";

const FILE_PREFIX = "$file:";

/**
 * `circle.state` of a code circle: data the entity reaches as variables, not through the prompt
 * (§3.3, §4.7). A value `{ $file: path }` (or the string `"$file:path"`) is loaded relative to
 * the spell: .json and .yaml/.yml are parsed, anything else is text.
 */
export function loadCircleState(
  spec: Readonly<Record<string, unknown>>,
  baseDir: string,
): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(spec)) {
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) {
      throw new ConfigError(
        "bad_state_name",
        `circle.state: ${JSON.stringify(name)} is not a JavaScript variable name`,
      );
    }
    state[name] = resolveValue(value, baseDir);
  }
  return state;
}

function resolveValue(value: unknown, baseDir: string): unknown {
  const path = fileRef(value);
  return path === undefined ? value : loadFile(path, baseDir);
}

function fileRef(value: unknown): string | undefined {
  if (typeof value === "string" && value.startsWith(FILE_PREFIX))
    return value.slice(FILE_PREFIX.length).trim();
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    const ref = value["$file"];
    if (keys.length === 1 && typeof ref === "string") return ref;
  }
  return undefined;
}

function loadFile(path: string, baseDir: string): unknown {
  const host = isAbsolute(path) ? path : resolve(baseDir, path);
  let text: string;
  try {
    text = readFileSync(host, "utf8");
  } catch (err) {
    throw new ConfigError(
      "state_file_unreadable",
      `circle.state: cannot read ${path}: ${unreadableBecause(err)}`,
    );
  }
  const ext = extname(host).toLowerCase();
  try {
    if (ext === ".json") return JSON.parse(text) as unknown;
    if (ext === ".yaml" || ext === ".yml") return parse(text) as unknown;
  } catch (err) {
    throw new ConfigError(
      "state_file_invalid",
      `circle.state: ${path} is not valid ${ext.slice(1).toUpperCase()}: ${(err as Error).message.split("\n")[0]}`,
    );
  }
  return text;
}
