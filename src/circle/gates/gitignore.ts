/**
 * One .gitignore's patterns, matched in linear time. A .gitignore in a searched folder is data
 * (a model may have written it), and a glob of many stars (`*a*a*a*a*a*a*a*a*b`) made a
 * backtracking RegExp (the `ignore` package's) take minutes on one 60-character name; here each
 * pattern is translated to RE2 (core/linear-pattern.ts). The rules are git's (gitignore(5)):
 * `#` comments, `!` re-includes, a trailing `/` matches folders only, a `/` at the start or in
 * the middle anchors the pattern to the .gitignore's folder, `*` and `?` stop at `/`, `[…]`
 * classes (`[!…]` negated), `**` as a whole segment any number of folders, `\` quotes the next
 * character, trailing spaces dropped unless quoted. Names match case-insensitively, as the
 * `ignore` package this replaces did.
 */
import { linearPattern, type LinearPattern } from "../../core/linear-pattern.js";

interface Rule {
  negated: boolean;
  dirOnly: boolean;
  re: LinearPattern;
}

export interface Verdict {
  /** The last pattern matching the path excludes it. */
  ignored: boolean;
  /** The last pattern matching the path is a `!pattern`. */
  unignored: boolean;
}

const META = /[\\^$.|?*+()[\]{}]/g;
const literal = (ch: string) => ch.replace(META, "\\$&");

/** A glob's body (no `!`, no trailing `/`) as an RE2 source matching a whole relative path. */
function globSource(glob: string): string {
  const anchored = glob.includes("/");
  let body = glob.startsWith("/") ? glob.slice(1) : glob;
  let out = anchored ? "^" : "^(?:.*/)?";
  if (body.startsWith("**/")) {
    out = "^(?:.*/)?";
    body = body.slice(3);
  }
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === "\\") {
      out += literal(body[++i] ?? "\\");
    } else if (body.startsWith("/**/", i)) {
      out += "/(?:.*/)?";
      i += 3;
    } else if (body.startsWith("/**", i) && i + 3 === body.length) {
      out += "/.*";
      i += 2;
    } else if (ch === "*") {
      while (body[i + 1] === "*") i++; // other runs of stars are one star
      out += "[^/]*";
    } else if (ch === "?") {
      out += "[^/]";
    } else if (ch === "[") {
      const end = body.indexOf("]", i + 2);
      if (end < 0) {
        out += "\\[";
        continue;
      }
      let set = body.slice(i + 1, end);
      const negated = set.startsWith("!") || set.startsWith("^");
      if (negated) set = set.slice(1);
      out += `[${negated ? "^/" : ""}${set.replace(/\\(?!.)|[[\]]/g, "\\$&")}]`;
      i = end;
    } else {
      out += literal(ch);
    }
  }
  return `(?i)${out}$`;
}

/** One rule of a line; undefined for a blank line, a comment or a pattern that cannot match. */
function ruleOf(line: string): Rule | undefined {
  let end = line.endsWith("\r") ? line.length - 1 : line.length;
  // Trailing spaces go unless quoted with a backslash (by hand: no pattern over the line).
  while (end > 0 && line[end - 1] === " " && line[end - 2] !== "\\") end--;
  let text = line.slice(0, end);
  if (!text || text.startsWith("#")) return undefined;
  const negated = text.startsWith("!");
  if (negated) text = text.slice(1);
  else if (text.startsWith("\\!") || text.startsWith("\\#")) text = text.slice(1);
  const dirOnly = text.endsWith("/") && !text.endsWith("\\/");
  if (dirOnly) text = text.slice(0, -1);
  if (!text) return undefined;
  try {
    return { negated, dirOnly, re: linearPattern(globSource(text)) };
  } catch {
    return undefined; // git ignores a pattern it cannot read; so do we
  }
}

/** A .gitignore's rules; `test` says what its last matching pattern makes of a path. */
export class GitIgnore {
  private readonly rules: Rule[];

  constructor(text: string) {
    this.rules = text
      .split("\n")
      .map(ruleOf)
      .filter((r): r is Rule => r !== undefined);
  }

  /**
   * `path` relative to the .gitignore's folder, `/`-separated. A path below a folder these rules
   * exclude is excluded (git does not look inside it, and a `!pattern` cannot bring it back).
   */
  test(path: string, isDir: boolean): Verdict {
    for (let at = path.indexOf("/"); at > 0; at = path.indexOf("/", at + 1))
      if (this.folderIgnored(path.slice(0, at))) return { ignored: true, unignored: false };
    const last = this.last(path, isDir);
    return { ignored: last?.negated === false, unignored: last?.negated === true };
  }

  /** Each folder's verdict, asked once: the paths of one walk share their folders. */
  private readonly folders = new Map<string, boolean>();

  private folderIgnored(path: string): boolean {
    let ignored = this.folders.get(path);
    if (ignored === undefined)
      this.folders.set(path, (ignored = this.last(path, true)?.negated === false));
    return ignored;
  }

  private last(path: string, isDir: boolean): Rule | undefined {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i]!;
      if ((!r.dirOnly || isDir) && r.re.test(path)) return r;
    }
    return undefined;
  }
}
