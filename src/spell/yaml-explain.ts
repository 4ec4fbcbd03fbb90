/**
 * The YAML parser's indentation errors told in spell terms: which key (or list item) is out of
 * line, by how many spaces, against which line — instead of the grammar's words ("All mapping
 * items must start at the same column", "Implicit keys need to be on a single line").
 */

/** The parser's error codes that come from indentation (or two keys on one line). */
const INDENT_CODES = new Set([
  "BAD_INDENT",
  "TAB_AS_INDENT",
  "MULTILINE_IMPLICIT_KEY",
  "BLOCK_AS_IMPLICIT_KEY",
]);

export interface Explained {
  message: string;
  /** 1-based */
  line: number;
  col: number;
}

interface Line {
  n: number;
  indent: number;
  /** The text after the indentation, without a trailing comment. */
  body: string;
}

/** What the error at `line` (1-based) means for the spell, or undefined to keep the parser's words. */
export function explainYamlError(code: string, text: string, line: number): Explained | undefined {
  if (!INDENT_CODES.has(code)) return undefined;
  const lines = text.split("\n");
  const raw = lines[line - 1] ?? "";
  if (code === "TAB_AS_INDENT" || /^ *\t/.test(raw)) {
    return {
      message: `a tab indents line ${line}; spells are indented with spaces only: replace the tab with spaces`,
      line,
      col: 1,
    };
  }
  const all = lines.map((t, i) => content(t, i + 1));
  const at = all[line - 1];
  const next = all.slice(line).find((l) => l !== undefined);
  for (const l of [at, next]) {
    if (!l) continue;
    const told = outOfLine(l, all);
    if (told) return told;
  }
  if (at && /^(- )?[\w.-]+:\s+[\w.-]+:(\s|$)/.test(at.body)) {
    const [outer, inner] = at.body.replace(/^- /, "").split(/:\s+/);
    return {
      message: `line ${line} holds two keys, ${outer} and ${inner}: a mapping as a value starts on its own line — write ${inner}: on the next line, indented under ${outer}`,
      line,
      col: at.indent + 1,
    };
  }
  return undefined;
}

/** A line of content (not blank, not a comment), or undefined. */
function content(text: string, n: number): Line | undefined {
  const body = text
    .trim()
    .replace(/\s+#.*$/, "")
    .trimEnd();
  if (!body || body.startsWith("#")) return undefined;
  return { n, indent: text.length - text.trimStart().length, body };
}

/** The key of a line (`wards`) or its list item (`- echo`), as the message names it. */
const nameOf = (l: Line): string =>
  l.body.startsWith("-") ? l.body.replace(/:.*$/, "") : (/^([^:]+):/.exec(l.body)?.[1] ?? l.body);

/** A line that ends by opening a block under it (`circle:`, `-`, `- name:`, `key: |`). */
const opensBlock = (l: Line): boolean => /(^-|:)$/.test(l.body) || /:\s*[|>][-+]?\d*$/.test(l.body);

const spaces = (n: number): string => `${n} space${n === 1 ? "" : "s"}`;

/** The explanation when `l` does not line up with the content line before it. */
function outOfLine(l: Line, all: (Line | undefined)[]): Explained | undefined {
  const before = all.slice(0, l.n - 1).filter((x): x is Line => x !== undefined);
  const prev = before.at(-1);
  if (!prev || l.indent === prev.indent) return undefined;
  const where = { line: l.n, col: l.indent + 1 };
  const name = nameOf(l);
  if (l.indent > prev.indent) {
    if (opensBlock(prev)) return undefined;
    return {
      message: `${name} is indented ${spaces(l.indent)}, deeper than ${nameOf(prev)} (line ${prev.n}), which already has a value on its line: a key beside ${nameOf(prev)} starts in the same column (${spaces(prev.indent)}); a key under it needs ${nameOf(prev)}: to end its line`,
      ...where,
    };
  }
  // Shallower than the line before: it must line up with some line above it.
  const owner = [...before].reverse().find((x) => x.indent <= l.indent);
  if (owner && owner.indent === l.indent) return undefined;
  const outer = owner ? ` and ${nameOf(owner)} (line ${owner.n}, ${spaces(owner.indent)})` : "";
  const or = owner ? `, or ${owner.indent} to stand beside ${nameOf(owner)}` : "";
  return {
    message: `${name} is indented ${spaces(l.indent)}, between the columns of ${nameOf(prev)} (line ${prev.n}, ${spaces(prev.indent)})${outer}: keys of one mapping, and items of one list, start in the same column — indent it ${prev.indent} to stand beside ${nameOf(prev)}${or}`,
    ...where,
  };
}
