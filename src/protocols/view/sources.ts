/**
 * What `spell view` may read: the loom named on the command line, or the looms and eval runs
 * of the folder named (and of its folders two levels down). The list is made by the server from
 * the folder; a request names an entry by its number, never by a path, so no request can name
 * a file outside. A symbolic link inside the folder is skipped, and every file found must
 * resolve inside the folder (its real path), checked again each time it is opened.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { LoomViewIndex } from "../../loom/view-index.js";

export interface LoomSource {
  id: string;
  kind: "loom";
  name: string;
  path: string;
  index: LoomViewIndex;
}

export interface EvalSource {
  id: string;
  kind: "eval";
  name: string;
  /** The run's folder: results.jsonl, summary.json. */
  path: string;
  /** The run's loom, when it has one. */
  loom: string | null;
}

export type Source = LoomSource | EvalSource;

const isLoomName = (name: string) =>
  name.endsWith(".jsonl") && !name.endsWith(".state.jsonl") && name !== "results.jsonl";

export class Sources {
  private readonly root: string;
  private readonly isDir: boolean;
  private readonly byPath = new Map<string, Source>();
  private next = 0;

  constructor(target: string) {
    this.root = realpathSync(target);
    this.isDir = statSync(this.root).isDirectory();
    this.scan();
  }

  /** True when `path` (a file's real path) lies inside what was named. */
  inside(path: string): boolean {
    if (!this.isDir) return path === this.root;
    // The folder itself is inside: an eval run named by its own folder (`spell view out/`).
    return path === this.root || path.startsWith(this.root + sep);
  }

  /** Every entry, looking at the folder again (a cast may have started a new loom). */
  list(): Source[] {
    this.scan();
    return [...this.byPath.values()];
  }

  get(id: string): Source | undefined {
    for (const s of this.byPath.values()) if (s.id === id) return this.checked(s);
    return undefined;
  }

  /** The entry, if its file still resolves inside the folder (a file swapped for a link does not). */
  private checked(s: Source): Source | undefined {
    try {
      return this.inside(realpathSync(s.path)) && !lstatSync(s.path).isSymbolicLink()
        ? s
        : undefined;
    } catch {
      return undefined;
    }
  }

  private scan(): void {
    if (!this.isDir) {
      this.add("loom", this.root);
      return;
    }
    this.scanDir(this.root, 0);
  }

  private scanDir(dir: string, depth: number): void {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    if (names.includes("results.jsonl")) this.add("eval", dir, names.find(isLoomName));
    for (const name of names) {
      const path = join(dir, name);
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory() && depth < 2) this.scanDir(path, depth + 1);
      else if (st.isFile() && isLoomName(name)) this.add("loom", path);
    }
  }

  private add(kind: Source["kind"], path: string, loomName?: string): void {
    // An eval run is known by its results file: a folder may be a run and hold a loom.
    const key = kind === "eval" ? join(path, "results.jsonl") : path;
    if (this.byPath.has(key) || (this.isDir && !this.inside(path))) return;
    const name = this.isDir ? relative(this.root, path) || "." : path.split(sep).pop()!;
    if (kind === "loom") {
      const id = String(this.next++);
      this.byPath.set(key, { id, kind, name, path, index: new LoomViewIndex(path) });
      return;
    }
    const loomPath = loomName ? join(path, loomName) : null;
    if (loomPath) this.add("loom", loomPath);
    const loom = loomPath ? (this.byPath.get(loomPath)?.id ?? null) : null;
    this.byPath.set(key, { id: String(this.next++), kind, name, path, loom });
  }
}
