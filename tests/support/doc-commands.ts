/**
 * The `spell` command lines the documentation shows: every line of a ```-fenced block that
 * starts a `spell` command (after an optional `$ `, `npx `, `VAR=value` assignments, an
 * `echo '…' |` or `printf '…' |` feeding its stdin, or `npm install &&`), taken apart into
 * what a test needs to run it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface DocCommand {
  /** `README.md:94` */
  where: string;
  /** The line as written (without its comment). */
  line: string;
  /** The arguments after `spell`. */
  argv: string[];
  env: Record<string, string>;
  stdin: string;
  /** `> FILE`: stdout goes there. */
  stdoutTo: string | undefined;
  /** `2> FILE` / `2>FILE`: stderr goes there. */
  stderrTo: string | undefined;
}

const START =
  /^(?:\$\s+)?(?:npm install && )?((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)(?:(echo|printf)\s+('[^']*'|"[^"]*")\s*\|\s*)?(?:npx\s+)?spell(?:\s|$)/;

/** Every `spell` command line in the fenced blocks of these files (paths relative to root). */
export function fencedCommands(root: string, files: readonly string[]): DocCommand[] {
  const found: DocCommand[] = [];
  for (const file of files) {
    let fenced = false;
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((raw, i) => {
        if (/^\s*```/.test(raw)) {
          fenced = !fenced;
          return;
        }
        if (!fenced) return;
        const command = parseCommand(stripComment(raw).trim());
        if (command) found.push({ where: `${file}:${i + 1}`, ...command });
      });
  }
  return found;
}

/** One command line, or undefined when the line does not start a `spell` command. */
export function parseCommand(line: string): Omit<DocCommand, "where"> | undefined {
  const m = START.exec(line);
  if (!m) return undefined;
  const env: Record<string, string> = {};
  for (const a of (m[1] ?? "").trim().split(/\s+/).filter(Boolean)) {
    const eq = a.indexOf("=");
    env[a.slice(0, eq)] = a.slice(eq + 1);
  }
  const piped = m[3] === undefined ? undefined : m[3].slice(1, -1);
  const stdin =
    piped === undefined ? "" : m[2] === "echo" ? `${piped}\n` : piped.replace(/\\n/g, "\n");
  let rest = line.slice(m[0].length);
  let stdoutTo: string | undefined;
  let stderrTo: string | undefined;
  for (;;) {
    const r = /\s*(2?)>\s*(\S+)\s*$/.exec(rest);
    if (!r) break;
    if (r[1] === "2") stderrTo = r[2];
    else stdoutTo = r[2];
    rest = rest.slice(0, r.index);
  }
  return { line, argv: words(rest), env, stdin, stdoutTo, stderrTo };
}

/** A line without its `# comment` (a `#` after a space, outside quotes). */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && i > 0 && /\s/.test(line[i - 1]!)) return line.slice(0, i);
  }
  return line;
}

/** Shell words: spaces split, single and double quotes group. */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** A word of a synopsis that stands for a value: `FILE`, `P/M`, `PATH|memory`, `FILE…`. */
const isPlaceholder = (word: string): boolean => /^[A-Z](?![a-z])/.test(word) || /[|…]/.test(word);

/** A synopsis line (`spell run FILE [--json]`) rather than an example to run as written. */
export const isSynopsis = (argv: readonly string[]): boolean =>
  argv.some((a) => /[[\]]/.test(a) || isPlaceholder(a));

/**
 * A synopsis made concrete: optional parts taken, each placeholder (and each other word that
 * `values` names) replaced by `values["COMMAND WORD"]`, else `values[word]`. A placeholder
 * without a value throws, so a new one in the docs makes the test say which value it needs.
 */
export function instantiate(
  argv: readonly string[],
  values: Readonly<Record<string, string>>,
): string[] {
  const bare = argv.map((a) => a.replace(/^\[+|\]+$/g, "")).filter(Boolean);
  const firstOther = bare.findIndex((a) => !/^[a-z]+$/.test(a));
  const command = (firstOther === -1 ? bare : bare.slice(0, firstOther)).join(" ");
  return bare.map((word) => {
    const value = values[`${command} ${word}`] ?? values[word];
    if (value !== undefined) return value;
    if (isPlaceholder(word))
      throw new Error(`no value for the placeholder ${word} of spell ${command}`);
    return word;
  });
}
