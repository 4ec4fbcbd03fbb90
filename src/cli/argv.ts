/**
 * The command line before oclif sees it: `spell help run` is `spell run --help`, and an unknown
 * command or flag is refused with a "did you mean" (exit 3, as the README says), instead of
 * oclif's bare "not found".
 */
import { suggest } from "../spell/suggest.js";

/** What argv checking needs of a command: its flags (name → takes a value?, allowNo?, char). */
export interface CommandShape {
  flags?: Readonly<Record<string, { type?: string; allowNo?: boolean; char?: string }>>;
}

export type ArgvCheck = { args: string[] } | { error: string };

const GLOBAL = new Set(["help", "version"]);

/** argv → the arguments oclif runs, or the error to print. Ids are oclif's (`loom:export`). */
export function checkArgv(
  argv: readonly string[],
  commands: Record<string, CommandShape>,
): ArgvCheck {
  const args = argv[0] === "help" ? [...argv.slice(1), "--help"] : [...argv];
  const words = args.filter((a) => !a.startsWith("-"));
  const ids = Object.keys(commands);
  const topics = new Set(ids.filter((id) => id.includes(":")).map((id) => id.split(":")[0]!));
  if (words.length === 0) return { args };
  const [first, second] = words;
  const pure = topics.has(first!) && !ids.includes(first!);
  // `dna verify`: a subcommand wins over its topic's own command (`dna FILE`), as in oclif
  const sub = second === undefined ? undefined : `${first}:${second}`;
  const id = sub !== undefined && (pure || ids.includes(sub)) ? sub : first!;
  if (pure && second === undefined) return { args }; // `spell loom`: oclif lists the topic
  if (!ids.includes(id)) return { error: unknownCommand(id, ids) };
  if (args.includes("--help") || args.includes("-h")) return { args };
  const bad = unknownFlag(args, commands[id]!);
  return bad
    ? {
        error: `unknown flag ${bad.flag} for spell ${id.replace(":", " ")}${bad.hint}\nSee: spell help ${id.replace(":", " ")}\n`,
      }
    : { args };
}

function unknownCommand(id: string, ids: string[]): string {
  const spaced = ids.map((i) => i.replace(":", " "));
  const word = id.replace(":", " ");
  const guess = closest(word, spaced);
  return `unknown command ${JSON.stringify(id.replace(":", " "))}${guess ? `; did you mean "spell ${guess}"?` : ""}\nCommands: ${spaced.join(", ")} (spell help COMMAND)\n`;
}

/** The first `--name` or `-c` the command does not have, with the closest one it has. */
function unknownFlag(
  args: string[],
  shape: CommandShape,
): { flag: string; hint: string } | undefined {
  const names = new Set<string>(GLOBAL);
  const chars = new Set<string>(["h"]);
  for (const [name, f] of Object.entries(shape.flags ?? {})) {
    names.add(name);
    if (f.allowNo) names.add(`no-${name}`);
    if (f.char) chars.add(f.char);
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return undefined;
    if (a.startsWith("--")) {
      const name = a.slice(2).split("=")[0]!;
      if (!names.has(name)) {
        const guess = closest(name, [...names]);
        return { flag: `--${name}`, hint: guess ? `; did you mean --${guess}?` : "" };
      }
      if (!a.includes("=") && shape.flags?.[name]?.type === "option") i++; // its value
    } else if (/^-[A-Za-z]$/.test(a)) {
      if (!chars.has(a[1]!)) return { flag: a, hint: "" };
      const f = Object.values(shape.flags ?? {}).find((x) => x.char === a[1]);
      if (f?.type === "option") i++;
    }
  }
  return undefined;
}

/** The closest candidate; a word with the same letters in another order (`rnu`) counts too. */
function closest(word: string, candidates: string[]): string | undefined {
  const sorted = (w: string) => [...w].sort().join("");
  return suggest(word, candidates) ?? candidates.find((c) => sorted(c) === sorted(word));
}
