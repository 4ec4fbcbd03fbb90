import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ignoreModule, { type Ignore } from "ignore";
import type { Gate } from "../gate.js";
import { FsRoot } from "./fs-root.js";

// A CommonJS module whose function is both module.exports and its .default.
const ignore = ignoreModule.default;

const MAX_RESULTS = 100;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 300;

/** One folder's ignore rules: its own .gitignore on top of its parents'. */
interface Rules {
  /** The folder the rules' patterns are relative to. */
  base: string;
  ig: Ignore;
  parent: Rules | undefined;
}

/**
 * Searches the text files under a root (seed 002 "Gates"): a regular expression or a literal,
 * skipping what `.gitignore` files ignore (and .git), results capped, each `file:line: text`.
 */
export function searchGate(options: { root: string }): Gate {
  const fs = new FsRoot(options.root);
  return {
    name: "search",
    description:
      "Search the files under the root for a regular expression (or a literal string), skipping what .gitignore ignores. Returns file:line: text lines.",
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "A regular expression (JavaScript syntax)." },
        literal: {
          type: "boolean",
          description: "Match the pattern as plain text. Default false.",
        },
        path: { type: "string", description: "Folder to search below; default the root." },
      },
      required: ["pattern"],
    },
    execute(args) {
      const pattern = args["pattern"];
      if (typeof pattern !== "string" || pattern === "")
        throw new Error("pattern must be a non-empty string");
      const re = args["literal"] === true ? new RegExp(escape(pattern)) : compile(pattern);
      const start = fs.resolve(args["path"] ?? ".");
      const hits: string[] = [];
      let more = 0;
      walk(fs.resolve("."), start, rulesFor(fs.resolve("."), start), (file) => {
        const found = matches(file, re);
        for (const [line, text] of found) {
          if (hits.length < MAX_RESULTS)
            hits.push(`${relative(fs.resolve("."), file).split(sep).join("/")}:${line}: ${text}`);
          else more++;
        }
      });
      if (hits.length === 0) return "no matches";
      return more
        ? `${hits.join("\n")}\n[${more} more matches not shown; narrow the pattern or the path]`
        : hits.join("\n");
    },
  };
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new Error(
      `bad regular expression: ${(err as Error).message} (set literal: true to search the text as written)`,
    );
  }
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The rules in force in `dir`: every .gitignore from the root down to it. */
function rulesFor(root: string, dir: string): Rules | undefined {
  let rules = load(root, undefined);
  const rel = relative(root, dir);
  let here = root;
  for (const part of rel ? rel.split(sep) : []) {
    here = join(here, part);
    rules = load(here, rules);
  }
  return rules;
}

function load(dir: string, parent: Rules | undefined): Rules | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, ".gitignore"), "utf8");
  } catch {
    return parent;
  }
  return { base: dir, ig: ignore().add(text), parent };
}

function ignored(rules: Rules | undefined, path: string, isDir: boolean): boolean {
  for (let r = rules; r; r = r.parent) {
    const rel = relative(r.base, path).split(sep).join("/");
    if (rel && r.ig.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

/** Every regular file below `dir`, in name order; symlinks are not followed (nothing leaves the root). */
function walk(
  root: string,
  dir: string,
  rules: Rules | undefined,
  visit: (file: string) => void,
): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.name === ".git" || ignored(rules, path, e.isDirectory())) continue;
    if (e.isDirectory()) walk(root, path, load(path, rules), visit);
    else if (e.isFile()) visit(path);
  }
}

function matches(file: string, re: RegExp): [number, string][] {
  if (statSync(file).size > MAX_FILE_BYTES) return [];
  const buf = readFileSync(file);
  if (buf.includes(0)) return []; // binary
  const out: [number, string][] = [];
  buf
    .toString("utf8")
    .split("\n")
    .forEach((text, i) => {
      if (re.test(text))
        out.push([
          i + 1,
          text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text,
        ]);
    });
  return out;
}
