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

/**
 * A flow list or mapping (`[…]`, `{…}`) left open: the parser reports it at the next line it
 * cannot take ("Flow sequence in block collection must be sufficiently indented and end with a
 * ]"); this names the bracket that was never closed, where it was opened. Undefined when no
 * bracket before `line` is open.
 */
export function unclosedFlow(text: string, line: number): Explained | undefined {
  const open: { char: string; line: number; col: number; key: string }[] = [];
  let block: number | undefined; // indentation of a block scalar's key line, while inside it
  text
    .split("\n")
    .slice(0, line)
    .forEach((raw, i) => {
      const indent = raw.length - raw.trimStart().length;
      if (block !== undefined && (raw.trim() === "" || indent > block)) return;
      block = undefined;
      let from = 0;
      if (open.length === 0) {
        // Outside a flow collection, one opens only as a value: `key: [`, `- {`, `- key: [`.
        const value = /^(\s*(?:-\s+)*(?:[^\s#'"{}[\]:][^#:]*:\s+)?)[[{]/.exec(raw);
        if (!value) {
          if (/:\s*[|>][-+]?\d*\s*(#.*)?$/.test(raw)) block = indent;
          return;
        }
        from = value[1]!.length;
      }
      let quote: string | undefined;
      for (let c = from; c < raw.length; c++) {
        const ch = raw[c]!;
        if (quote) {
          if (ch === quote) quote = undefined;
        } else if (ch === '"' || ch === "'") quote = ch;
        else if (ch === "#" && /\s/.test(raw[c - 1] ?? " ")) break;
        else if (ch === "[" || ch === "{")
          open.push({ char: ch, line: i + 1, col: c + 1, key: raw.trim() });
        else if (ch === "]" || ch === "}") {
          open.pop();
          if (open.length === 0) break;
        }
      }
    });
  const last = open.at(-1);
  if (!last) return undefined;
  const [what, close] = last.char === "[" ? ["list", "]"] : ["mapping", "}"];
  return {
    message: `the ${last.char} opened on line ${last.line} (${last.key}) is never closed: end the ${what} with ${close}${last.char === "[" ? ', or write it as a block list, one "- item" a line' : ""}`,
    line: last.line,
    col: last.col,
  };
}
