/**
 * The first thing `spell` decides (bin/run.js, through dist/start.cjs): whether this command
 * line needs oclif at all. Two common ones do not (ARCHITECTURE.md "Start-up"):
 *
 * - help and `--version` in a plain setting (stdout not a terminal, no colour or width forced):
 *   the text oclif rendered at build time for exactly this command line, kept in
 *   dist/start-pages.json (read only when the command line is one of them);
 * - `spell run FILE` with flags written plainly: the run bundle (dist/run.cjs), which casts
 *   without oclif and without the rest of the CLI.
 *
 * Anything else — and anything this file is not sure about — goes to oclif, which then says
 * what it always said. Tests hold both fast paths to oclif's own output and parse.
 */
import type { RunFlags } from "./run-flags.js";

/** A flag of a command as oclif.manifest.json describes it. */
export interface ManifestFlag {
  type: "boolean" | "option";
  char?: string;
  [key: string]: unknown;
}

/** A command as oclif.manifest.json describes it (the part the fast path reads). */
export interface ManifestCommand {
  args: Record<string, { required?: boolean; [key: string]: unknown }>;
  flags: Record<string, ManifestFlag>;
  strict?: boolean;
  [key: string]: unknown;
}

/** What the build leaves in dist/start.json: what the plan needs, without the pages. */
export interface StartData {
  /**
   * oclif's user agent when the pages were rendered (root help and --version print it): the
   * pages are used only by a process whose own is the same (same Node, platform, version).
   */
  userAgent: string;
  /**
   * The command lines (JSON.stringify(argv)) with a page in dist/start-pages.json: every
   * `spell run` would otherwise parse ~100 KB of help it does not print.
   */
  helps: readonly string[];
  /** The `run` command from the manifest: the flags the fast path parses. */
  run: ManifestCommand;
}

export type StartPlan =
  | { kind: "print"; text: string }
  | { kind: "run"; file: string; flags: RunFlags }
  | { kind: "oclif" };

/** The process as the plan sees it. */
export interface StartProcess {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Read only for a command line with a help page (bin/run.js makes it a getter). */
  stdoutIsTTY: boolean;
  /** This process's oclif user agent: `name/version platform-arch node-vX`. */
  userAgent: string;
}

/**
 * Settings oclif reads (its own and the `SPELL_` ones it scopes to this CLI, debug output,
 * forced colour): a process with any of them goes to oclif.
 */
const OCLIF_ENV = /^(OCLIF_|SPELL_|FORCE_COLOR$|DEBUG$)/;

/** What the build leaves in dist/start-pages.json: JSON.stringify(argv) → what oclif printed
 * on stdout for it (exit 0, nothing on stderr). */
export type StartPages = Record<string, string>;

/** `pages` reads dist/start-pages.json, called only for a command line in `data.helps`. */
export function planStart(
  proc: StartProcess,
  data: StartData | undefined,
  pages: () => StartPages,
): StartPlan {
  if (!data || proc.env["SPELLBOOK_FAST_START"] === "0") return { kind: "oclif" };
  if (Object.keys(proc.env).some((k) => OCLIF_ENV.test(k))) return { kind: "oclif" };
  const page = helpPage(proc, data, pages);
  if (page !== undefined) return { kind: "print", text: page };
  if (proc.argv[0] === "run") {
    const parsed = parseRun(proc.argv.slice(1), data.run);
    if (parsed) return { kind: "run", ...parsed };
  }
  return { kind: "oclif" };
}

function helpPage(
  proc: StartProcess,
  data: StartData,
  pages: () => StartPages,
): string | undefined {
  const key = JSON.stringify(proc.argv);
  if (!data.helps.includes(key) || proc.stdoutIsTTY || proc.userAgent !== data.userAgent)
    return undefined;
  return pages()[key];
}

/** Keys of a manifest flag that the fast parser knows; a flag with any other goes to oclif. */
const PLAIN_FLAG = new Set([
  "type",
  "char",
  "name",
  "description",
  "hasDynamicHelp",
  "multiple",
  "multipleNonGreedy",
  "allowNo",
]);

function plainCommand(command: ManifestCommand): boolean {
  const args = Object.values(command.args);
  if (command.strict === false || args.length !== 1 || args[0]!.required !== true) return false;
  return Object.values(command.flags).every(
    (f) =>
      Object.keys(f).every((k) => PLAIN_FLAG.has(k)) &&
      // A repeatable option is read one value per flag: the manifest does not keep oclif's
      // `multipleNonGreedy`, so run's repeatable flags must set it (start.test.ts holds both
      // parsers to the same answer).
      (f["multiple"] !== true || f.type === "option") &&
      !f["allowNo"],
  );
}

/**
 * `spell run`'s arguments when they are written plainly — one FILE; `--flag value`,
 * `--flag=value` or `-c value` for a value that does not start with `-`; each flag once (a
 * repeatable one as often as it likes) —
 * else undefined (oclif parses them, and says what is wrong).
 */
export function parseRun(
  argv: readonly string[],
  command: ManifestCommand,
): { file: string; flags: RunFlags } | undefined {
  if (!plainCommand(command)) return undefined;
  const byChar = new Map(
    Object.entries(command.flags).flatMap(([n, f]) => (f.char ? [[f.char, n] as const] : [])),
  );
  const flags: Record<string, string | boolean | string[]> = {};
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (!token.startsWith("-")) {
      if (file !== undefined) return undefined;
      file = token;
      continue;
    }
    const eq = token.indexOf("=");
    const long = token.startsWith("--");
    const name = long
      ? token.slice(2, eq < 0 ? undefined : eq)
      : token.length === 2
        ? byChar.get(token[1]!)
        : undefined;
    const flag = name === undefined ? undefined : command.flags[name];
    const many = flag?.["multiple"] === true;
    if (!flag || !Object.hasOwn(command.flags, name!) || (name! in flags && !many))
      return undefined;
    if (flag.type === "boolean") {
      if (eq >= 0) return undefined;
      flags[name!] = true;
      continue;
    }
    const value = long && eq >= 0 ? token.slice(eq + 1) : argv[++i];
    if (!value || value.startsWith("-")) return undefined;
    // A repeatable flag (`--input a=1 --input b=2`) collects its values, as oclif does.
    if (many) ((flags[name!] as string[] | undefined) ?? (flags[name!] = [])).push(value);
    else flags[name!] = value;
  }
  return file === undefined ? undefined : { file, flags };
}
