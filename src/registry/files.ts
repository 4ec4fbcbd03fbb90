/**
 * What a spell names outside itself, found in its YAML without loading it (no LLM, no
 * environment): child spells (`spell:` of call_entity, `cast:` of a flow, an eval's `spells:`),
 * data (`$file:`), an MCP server's script (a `command:` or `args:` item that is a relative path to
 * a file), and the folders it reaches (`root:`, an MCP server's `cwd:`); registry references
 * (`oci://…`) apart. `spell push` packs the files; a pulled spell is checked with the same walk,
 * so that none of its paths leaves its folder; `spell lock` pins the references and hashes the
 * MCP scripts.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Node } from "yaml";
import { isRemote } from "./reference.js";

export interface Named {
  /** The file that names it, relative to the root. */
  from: string;
  line: number;
  col: number;
  /** The path as written. */
  text: string;
}

export interface SpellFiles {
  /** Files inside the root, relative to it (the spell first), sorted after it. */
  files: string[];
  /** MCP server scripts among them (relative to the root), hashed by `spell lock`. */
  scripts: string[];
  /** Registry references, as written (`oci://…`), each where it is named. */
  remotes: (Named & { ref: string })[];
  /** Paths that leave the root (`..`, absolute) or name nothing, each with the reason. */
  problems: (Named & { why: string })[];
}

const FOLDER_KEYS = new Set(["root", "cwd"]);

/** Walks `main` (inside `root`) and every spell it names, once each. */
export function spellFiles(main: string, root = dirname(main)): SpellFiles {
  const out: SpellFiles = { files: [], scripts: [], remotes: [], problems: [] };
  const seen = new Set<string>();
  const scripts = new Set<string>();
  const queue = [resolve(main)];
  const add = (abs: string) => {
    const rel = relative(root, abs).split(sep).join("/");
    if (!seen.has(rel)) {
      seen.add(rel);
      out.files.push(rel);
      return true;
    }
    return false;
  };
  add(queue[0]!);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const from = relative(root, file).split(sep).join("/");
    for (const item of namedIn(file)) {
      const at = { from, line: item.line, col: item.col, text: item.text };
      if (item.role === "spell" && isRemote(item.text)) {
        out.remotes.push({ ...at, ref: item.text });
        continue;
      }
      if (item.role === "command" && !looksLikePath(item.text)) continue;
      const base = item.base === undefined ? dirname(file) : resolve(dirname(file), item.base);
      if (isAbsolute(item.text)) {
        const why = absoluteWhy(item);
        if (why) out.problems.push({ ...at, why });
        continue;
      }
      const abs = resolve(base, item.text);
      if (!inside(root, abs)) {
        out.problems.push({ ...at, why: item.role === "folder" ? FOLDER_LEAVES : LEAVES });
        continue;
      }
      if (item.role === "folder") continue;
      if (!existsSync(abs) || !statSync(abs).isFile()) {
        if (item.role !== "command") out.problems.push({ ...at, why: "names no file" });
        continue;
      }
      if (item.role === "command") scripts.add(relative(root, abs).split(sep).join("/"));
      if (add(abs) && item.role === "spell") queue.push(abs);
    }
  }
  out.scripts = [...scripts];
  out.files = [out.files[0]!, ...out.files.slice(1).sort()];
  return out;
}

const LEAVES = "leaves the spell's folder";
const FOLDER_LEAVES = `${LEAVES}: pulled elsewhere, this folder would be another one (name a folder inside it, or put the spell where its folders are)`;

/**
 * Why an absolute path is refused, or nothing. A program is started by name (from PATH) or as a
 * script inside the folder: an absolute `command:` is outside it. An absolute argument may be
 * data (`/tmp`, say): not refused.
 */
function absoluteWhy(item: ReturnType<typeof namedIn>[number]): string | undefined {
  if (item.role !== "command")
    return "is an absolute path: a shared spell names files inside its folder";
  return item.program
    ? "is an absolute path: a shared spell starts a program by name, or a script inside its folder"
    : undefined;
}

/** Whether `path` is `root` or below it. */
export function inside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** An MCP command or argument that names a file: `./x`, `dir/x.mjs`, `x.py` … */
function looksLikePath(text: string): boolean {
  return !text.startsWith("-") && (text.includes("/") || /\.[A-Za-z0-9]{1,5}$/.test(text));
}

interface Item {
  role: "spell" | "data" | "folder" | "command";
  text: string;
  line: number;
  col: number;
  /** Where a relative `command`/`args` path resolves (an MCP server's `cwd`). */
  base?: string;
  /** An MCP server's `command:` (not one of its `args:`). */
  program?: boolean;
}

/** The paths one document names, with their line and column. */
function namedIn(file: string): Item[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length > 0) return [];
  const items: Item[] = [];
  const push = (role: Item["role"], node: unknown, base?: string, program = false) => {
    if (!isScalar(node) || typeof node.value !== "string") return;
    const pos = lines.linePos(node.range?.[0] ?? 0);
    items.push({
      role,
      text: node.value,
      line: pos.line,
      col: pos.col,
      ...(base ? { base } : {}),
      ...(program ? { program } : {}),
    });
  };
  const kind: unknown = (doc.toJS() as { kind?: unknown } | null)?.kind;
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key)) return;
      const key = String(pair.key.value);
      const value = pair.value as Node | null;
      if (key === "$file") push("data", value);
      else if (key === "spell" || (key === "cast" && kind === "flow")) push("spell", value);
      else if (FOLDER_KEYS.has(key)) push("folder", value);
      // `loom: { path }` is where the run writes its loom (inside the folder, not packed); a
      // replay LLM's `loom:` is a recorded loom it reads (packed).
      else if (key === "loom" && isMap(value)) push("folder", value.get("path", true));
      else if (key === "loom") push("data", value);
      else if (key === "spells" && kind === "eval" && isSeq(value))
        for (const v of value.items) push("spell", v);
      else if (key === "mcp" && isMap(value)) {
        const cwd: unknown = (value.toJSON() as { cwd?: unknown } | null)?.cwd;
        const base = typeof cwd === "string" ? cwd : undefined;
        push("command", value.get("command", true), base, true);
        const args = value.get("args", true);
        if (isSeq(args)) for (const a of args.items) push("command", a, base);
      }
    },
  });
  return items.filter((i) => i.text.trim() !== "");
}

/** `root/rel` for a path from the walk. */
export const under = (root: string, rel: string): string => join(root, ...rel.split("/"));
