/**
 * The simple commands a bash line runs, for `approve: - command:` globs (issue 38). Matched on
 * the whole text, `cd . && git push` skipped the `git push*` rule; so a line is parsed by a real
 * shell grammar (tree-sitter's bash grammar, run in WebAssembly, loaded on first use) and every
 * simple command in it — after `&&`, `;`, `|`, in a subshell, a `$(…)`, a function body, a
 * heredoc — is matched on its own, its words unquoted as the shell reads them. A part only known
 * when it runs (`$X`, `$(…)`, an unquoted `*`, `{a,b}`, `~`) may be anything: the glob asks if
 * some value of it would match. A line the grammar cannot read is undefined: the caller asks.
 */
import { createRequire } from "node:module";
import type { Node as SyntaxNode, Parser as TsParser } from "web-tree-sitter";

/** A part of a command only known when it runs: it may stand for any text. */
export const ANY = -1;
/** A command's words, each a list of code points (or ANY). */
export type Words = number[][];

let parser: Promise<TsParser> | undefined;

/** The bash grammar, loaded once per process (about 20 ms) on the first command a rule judges. */
function bashParser(): Promise<TsParser> {
  parser ??= (async () => {
    const require = createRequire(import.meta.url);
    const { Parser, Language } = await import("web-tree-sitter");
    const runtime = require.resolve("web-tree-sitter/tree-sitter.wasm");
    await Parser.init({ locateFile: () => runtime });
    const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const p = new Parser();
    p.setLanguage(bash);
    return p;
  })();
  return parser;
}

/** Static words the grammar reads as commands too (`sh -c '…'`, `eval '…'`): this deep at most. */
const MAX_NESTING = 3;

/** Every simple command of a line, as words; undefined when the line cannot be parsed. */
export async function simpleCommands(line: string): Promise<Words[] | undefined> {
  const p = await bashParser();
  const found: Words[] = [];
  return collect(p, line, found, 0, true) ? found : undefined;
}

function collect(
  p: TsParser,
  text: string,
  into: Words[],
  depth: number,
  strict: boolean,
): boolean {
  const tree = p.parse(text);
  if (!tree) return false;
  try {
    if (tree.rootNode.hasError) return !strict;
    const pending = [tree.rootNode];
    while (pending.length) {
      const node = pending.pop()!;
      if (node.type === "command") {
        const words = commandWords(node, text);
        into.push(words);
        // A static word that reads as a line (`sh -c 'cd . && git push'`) is judged as one too;
        // one that does not is data (a message, a file name), not a failure of the line.
        if (depth < MAX_NESTING)
          for (const w of words.slice(1)) {
            const line = w.includes(ANY) ? "" : textOf(w);
            if (/[\s;&|()`$]/.test(line)) collect(p, line, into, depth + 1, false);
          }
      }
      for (const child of node.namedChildren) if (child) pending.push(child);
    }
    return true;
  } finally {
    tree.delete();
  }
}

/** Names that are not words of the command run: assignments before it, redirections. */
const NOT_WORDS = /^(variable_assignment|.*_redirect|comment)$/;

function commandWords(node: SyntaxNode, text: string): Words {
  return node.namedChildren
    .filter((c): c is SyntaxNode => c !== null && !NOT_WORDS.test(c.type))
    .map((c) => wordOf(c, text));
}

/** A word as the shell reads it: quotes removed, escapes undone, what only runs later ANY. */
function wordOf(node: SyntaxNode, text: string): number[] {
  switch (node.type) {
    case "command_name":
    case "concatenation":
      return node.namedChildren.flatMap((c) => (c ? wordOf(c, text) : [ANY]));
    case "word":
    case "number":
      return unquoted(node.text);
    case "raw_string":
      return points(node.text.slice(1, -1));
    case "string":
      return doubleQuoted(node, text);
    default:
      return [ANY]; // $x, ${x}, $(…), <(…), $((…)), $'…', $"…"
  }
}

/** An unquoted word: `\c` is c; `*`, `?`, `[` (a file name pattern), `{`, and a leading `~` ANY. */
function unquoted(word: string): number[] {
  const out: number[] = [];
  const cs = [...word];
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (c === "\\") {
      const next = cs[++i];
      if (next !== undefined && next !== "\n") out.push(next.codePointAt(0)!);
    } else if ("*?[{".includes(c) || (c === "~" && i === 0)) out.push(ANY);
    else out.push(c.codePointAt(0)!);
  }
  return out;
}

/** `"…"`: the text between the quotes, `\$ \` \" \\` and a escaped newline undone, expansions ANY. */
function doubleQuoted(node: SyntaxNode, text: string): number[] {
  const out: number[] = [];
  let pos = node.startIndex + 1;
  const literal = (to: number) => {
    const part = text
      .slice(pos, to)
      .replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
    for (const c of points(part)) out.push(c);
  };
  for (const child of node.namedChildren) {
    if (!child || child.type === "string_content") continue;
    literal(child.startIndex);
    out.push(ANY);
    pos = child.endIndex;
  }
  literal(node.endIndex - 1);
  return out;
}

const points = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);
/** Code points back to text (no spread: a word may be longer than the call stack allows). */
const textOf = (w: number[]): string => w.map((c) => String.fromCodePoint(c)).join("");

/**
 * Whether a glob (`*` any run, `?` one character, the rest literal) matches a command's words
 * joined by single spaces, starting at any of its words (a wrapper — `env`, `sudo`, `xargs`,
 * `time` — does not hide the command it runs), for some value of its ANY parts. One pass over
 * the text keeping the set of glob positions reached: linear in the text for a given glob.
 */
export function commandMatches(glob: string, words: Words): boolean {
  const g = [...glob].map((c) => c.codePointAt(0)!);
  const STAR = "*".codePointAt(0)!;
  const ONE = "?".codePointAt(0)!;
  const text: number[] = [];
  const starts = new Set<number>();
  words.forEach((w, i) => {
    if (i > 0) text.push(0x20);
    starts.add(text.length);
    for (const c of w) text.push(c);
  });
  let at = new Uint8Array(g.length + 1);
  let next = new Uint8Array(g.length + 1);
  for (let j = 0; ; j++) {
    if (starts.has(j)) at[0] = 1;
    // Within position j: a star may match nothing; an ANY part may stand for any glob run.
    for (let i = 0; i < g.length; i++)
      if (at[i] && (g[i] === STAR || text[j] === ANY)) at[i + 1] = 1;
    if (j === text.length) return at[g.length] === 1;
    const c = text[j]!;
    next.fill(0);
    for (let i = 0; i <= g.length; i++) {
      if (!at[i]) continue;
      if (c === ANY)
        next[i] = 1; // the part ends here
      else if (g[i] === STAR) next[i] = 1;
      else if (i < g.length && (g[i] === ONE || g[i] === c)) next[i + 1] = 1;
    }
    [at, next] = [next, at];
  }
}
