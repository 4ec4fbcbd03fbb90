import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import type * as FsPromises from "node:fs/promises";
import type { Gate, GateContext } from "../gate.js";
import { at, close, FsRoot, O_PATH, type Opened } from "./fs-root.js";
import { ignored, withRules, type Rules } from "./search-rules.js";
import { LineMatcher } from "./search-lines.js";

/** node:fs/promises, loaded on the first search and not with every `spell run` (start-up: it
 * brings readline and the fs watchers with it). */
let fsPromises: typeof FsPromises | undefined;

const MAX_RESULTS = 100;
const MAX_FILE_BYTES = 1024 * 1024;
/** What one search may read and how long it may take, whatever the tree and the pattern. */
export const SEARCH_LIMITS = { files: 10_000, bytes: 64 * 1024 * 1024, ms: 20_000 };
/** Entries looked at between two turns of the event loop. */
const SLICE = 64;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Searches the text files under a root (seed 002 "Gates"): a regular expression in RE2 syntax
 * (matched in linear time, in a worker thread) or a literal, skipping what `.gitignore` files
 * ignore (and .git), results capped, each `file:line: text`. Files are walked and opened inside
 * the root as the other file gates do; symlinks are not followed.
 */
export function searchGate(options: { root: string }): Gate {
  const fs = new FsRoot(options.root);
  return {
    name: "search",
    description:
      "Search the files under the root for a regular expression (RE2 syntax: no backreferences or lookaround) or a literal string, skipping what .gitignore ignores. Returns file:line: text lines.",
    parameters: {
      type: "object",
      properties: {
        pattern: {
          type: "string",
          description: "A regular expression in RE2 syntax, e.g. `fn\\s+\\w+`.",
        },
        literal: {
          type: "boolean",
          description: "Match the pattern as plain text. Default false.",
        },
        path: { type: "string", description: "Folder to search below; default the root." },
      },
      required: ["pattern"],
    },
    reached: (args) => ({ path: fs.reached(args["path"]) }),
    execute(args, ctx) {
      const pattern = args["pattern"];
      if (typeof pattern !== "string" || pattern === "")
        throw new Error("pattern must be a non-empty string");
      const matcher = new LineMatcher(pattern, args["literal"] === true);
      const path = args["path"] ?? ".";
      const start = fs.open(path);
      try {
        if (ctx.judged?.["path"] !== undefined) fs.landed(start, ctx.judged["path"]);
        if (!start.stat?.isDirectory()) throw new Error(`ENOTDIR: ${JSON.stringify(path)}`);
      } catch (err) {
        close(start);
        throw err;
      }
      return searchBelow(fs, start, new Run(matcher, ctx));
    },
  };
}

async function searchBelow(fs: FsRoot, start: Opened, run: Run): Promise<string> {
  try {
    const rel = fs.relativeOf(start.fd!);
    await run.ready();
    await run.folder(start.fd!, rel, rulesFor(fs, rel));
  } finally {
    run.end();
    close(start);
  }
  return run.report();
}

/** One search: its budget, its results, its worker. */
class Run {
  private readonly hits: string[] = [];
  private more = 0;
  private files = 0;
  private bytes = 0;
  private entries = 0;
  private stopped: string | undefined;
  private readonly stop = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.stop.abort();

  constructor(
    private readonly matcher: LineMatcher,
    private readonly ctx: GateContext,
  ) {
    this.timer = setTimeout(() => {
      this.stopped = `after ${SEARCH_LIMITS.ms / 1000} s`;
      this.stop.abort();
    }, SEARCH_LIMITS.ms);
    ctx.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Every regular file below the folder, in name order. */
  async folder(dir: number, rel: string, rules: Rules | undefined): Promise<void> {
    fsPromises ??= await import("node:fs/promises");
    for (const name of (await fsPromises.readdir(at(dir))).sort()) {
      if (++this.entries % SLICE === 0) await nextTurn();
      if (this.stop.signal.aborted) return;
      if (name === ".git") continue;
      const fd = openChild(dir, name);
      if (fd === undefined) continue;
      try {
        const stat = fstatSync(fd);
        const path = rel ? `${rel}/${name}` : name;
        if (stat.isDirectory() && !ignored(rules, path, true))
          await this.folder(fd, path, withRules(rules, path, readChild(fd, ".gitignore")));
        else if (stat.isFile() && !ignored(rules, path, false))
          await this.file(fd, path, stat.size);
      } finally {
        closeSync(fd);
      }
    }
  }

  private async file(fd: number, path: string, size: number): Promise<void> {
    if (size > MAX_FILE_BYTES) return;
    if (++this.files > SEARCH_LIMITS.files || (this.bytes += size) > SEARCH_LIMITS.bytes) {
      this.stopped = `after ${SEARCH_LIMITS.files} files or ${SEARCH_LIMITS.bytes / 1048576} MiB`;
      this.stop.abort();
      return;
    }
    const limit = MAX_RESULTS - this.hits.length;
    // Read, decoded and matched in the worker: the host's event loop never holds the text.
    const found = await this.matcher.matchFile(at(fd), limit, this.stop.signal);
    if (!found || found.binary) return; // stopped, or binary
    for (const [line, text] of found.hits) this.hits.push(`${path}:${line}: ${text}`);
    this.more += found.count - found.hits.length;
  }

  /** Resolves once the pattern is compiled; rejects when RE2 cannot take it. */
  async ready(): Promise<void> {
    await this.matcher.start(this.stop.signal);
  }

  end(): void {
    clearTimeout(this.timer);
    this.ctx.signal.removeEventListener("abort", this.onAbort);
    this.matcher.end();
  }

  report(): string {
    if (this.ctx.signal.aborted) throw new Error("search cancelled");
    const out = [...this.hits];
    if (this.more)
      out.push(`[${this.more} more matches not shown; narrow the pattern or the path]`);
    if (this.stopped)
      out.push(`[search stopped ${this.stopped}; what is above is partial: narrow the path]`);
    return out.length ? out.join("\n") : "no matches";
  }
}

/** The rules in force in folder `rel`: every .gitignore from the root down to it. */
function rulesFor(fs: FsRoot, rel: string): Rules | undefined {
  let rules: Rules | undefined;
  const parts = rel ? rel.split("/") : [];
  for (let i = 0; i <= parts.length; i++) {
    const base = parts.slice(0, i).join("/");
    rules = fs.with(base || ".", ({ fd }) => withRules(rules, base, readChild(fd!, ".gitignore")));
  }
  return rules;
}

/** A handle on a name in a folder, never through a symlink; undefined when it is gone. */
function openChild(dir: number, name: string): number | undefined {
  try {
    return openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
}

/** The text of a regular file in a folder (a .gitignore), or undefined. */
function readChild(dir: number, name: string): string | undefined {
  const fd = openChild(dir, name);
  if (fd === undefined) return undefined;
  try {
    const stat = fstatSync(fd);
    return stat.isFile() && stat.size <= MAX_FILE_BYTES ? readFileSync(at(fd), "utf8") : undefined;
  } finally {
    closeSync(fd);
  }
}
