import { GitIgnore } from "./gitignore.js";

/** One folder's ignore rules: its own .gitignore on top of its parents'. */
export interface Rules {
  /** The folder the rules' patterns are relative to ("" for the root, else "a/b"). */
  base: string;
  ig: GitIgnore;
  parent: Rules | undefined;
}

/** The rules in force in folder `base`, given its .gitignore's text (if it has one). */
export function withRules(parent: Rules | undefined, base: string, text: string | undefined) {
  return text === undefined ? parent : { base, ig: new GitIgnore(text), parent };
}

/**
 * Whether git ignores `path` (relative to the root, `/`-separated): the deepest .gitignore with
 * a pattern that matches decides, so a nested `!pattern` re-includes what a parent's excluded.
 * (A file below an ignored folder is never reached: the walk does not enter that folder.)
 */
export function ignored(rules: Rules | undefined, path: string, isDir: boolean): boolean {
  for (let r = rules; r; r = r.parent) {
    const rel = r.base === "" ? path : path.slice(r.base.length + 1);
    if (!rel) continue;
    const { ignored, unignored } = r.ig.test(rel, isDir);
    if (ignored) return true;
    if (unignored) return false;
  }
  return false;
}
