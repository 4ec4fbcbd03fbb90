/**
 * What `spell view` may read: the loom named on the command line, or the looms and eval runs
 * of the folder named (and of its folders two levels down). The list is made by the server from
 * the folder; a request names an entry by its number, never by a path, so no request can name
 * a file outside. A symbolic link inside the folder is not listed, nor followed later.
 *
 * Every file and folder is reached as the file gates reach theirs (FsRoot): one name at a time
 * from a handle on the served folder, opened as the server starts, no name followed out of it.
 * A folder of the path, or the served folder's own name, swapped for a link to outside (between
 * the listing and a read, or during either) leads nowhere (issue 38: `O_NOFOLLOW` on the path
 * guarded only its last name).
 */
import {
  closeSync,
  constants,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  type Dirent,
} from "node:fs";
import { basename, dirname } from "node:path";
import { at, FsRoot } from "../../circle/gates/fs-root.js";
import { LoomViewerIndex, type ViewerIndex } from "../../loom/viewer/index.js";

export interface LoomSource {
  id: string;
  kind: "loom";
  name: string;
  /** Where the loom is inside the served folder ("a/b.jsonl"); a database's shown name. */
  path: string;
  index: ViewerIndex;
}

export interface EvalSource {
  id: string;
  kind: "eval";
  name: string;
  /** The run's folder inside the served folder ("." for the folder itself): results.jsonl, summary.json. */
  path: string;
  /** The run's loom, when it has one. */
  loom: string | null;
}

export type Source = LoomSource | EvalSource;

/** What the viewer's routes read: the served folder's looms and runs, or one store's loom. */
export interface ViewerSources {
  /** Every entry (a folder is looked at again: a cast may have started a new loom). */
  list(): Source[];
  get(id: string): Source | undefined;
  /** A file's text (an eval run's), or null when there is none to read. */
  readText(path: string): string | null;
  /** A listed loom file as a path for a command that opens it itself (a fork). */
  withOnDisk<T>(path: string, use: (onDisk: string) => Promise<T>): Promise<T>;
  close(): void | Promise<void>;
}

/** The most of an eval run's file read (results.jsonl, summary.json). */
const MAX_TEXT_BYTES = 64 << 20;

const isLoomName = (name: string) =>
  name.endsWith(".jsonl") && !name.endsWith(".state.jsonl") && name !== "results.jsonl";

/** A link is not listed, so none is followed: an entry swapped for one, even inside, is refused. */
const NO_LINKS = { noLinks: true };

const inDir = (dir: string, name: string) => (dir === "." ? name : `${dir}/${name}`);

export class Sources implements ViewerSources {
  /** The folder named, or the folder of the loom named. */
  private readonly fs: FsRoot;
  /** The loom named on the command line (its name in its folder), when a file was named. */
  private readonly file: string | undefined;
  private readonly byPath = new Map<string, Source>();
  private next = 0;

  constructor(target: string) {
    const real = realpathSync(target);
    const isDir = statSync(real).isDirectory();
    // Held: the folder opened now is the one served, whatever its name leads to later.
    this.fs = new FsRoot(isDir ? real : dirname(real), { hold: true });
    this.file = isDir ? undefined : basename(real);
    this.scan();
  }

  /** Lets go of the served folder's handle. */
  close(): void {
    this.fs.close();
  }

  /** Every entry, looking at the folder again (a cast may have started a new loom). */
  list(): Source[] {
    this.scan();
    return [...this.byPath.values()];
  }

  /**
   * A listed loom as a path for a command that opens it itself (a fork, which appends to it and
   * writes its state beside it): its folder reached through the held handle and kept open while
   * `use` runs, the path naming the loom inside that very folder (/proc/self/fd/N/NAME). A folder
   * of the path (or the served folder) swapped for a link since start leads nowhere; the loom
   * itself must still be a file there, not a link.
   */
  async withOnDisk<T>(path: string, use: (onDisk: string) => Promise<T>): Promise<T> {
    const { dir, name } = this.fs.with(
      path,
      ({ fd, stat, dir, name }) => {
        if (fd === undefined || !stat?.isFile())
          throw new Error(`${JSON.stringify(path)} is not a file`);
        return { dir: openSync(at(dir), constants.O_RDONLY | constants.O_DIRECTORY), name };
      },
      NO_LINKS,
    );
    try {
      return await use(at(dir, name));
    } finally {
      closeSync(dir);
    }
  }

  get(id: string): Source | undefined {
    for (const s of this.byPath.values()) if (s.id === id) return s;
    return undefined;
  }

  /**
   * A regular file of the served folder, opened for reading (the caller closes it); throws when
   * the path leads to nothing, to something else than a file (a FIFO would block), or out.
   */
  openFile(path: string, maxBytes = Number.POSITIVE_INFINITY): number {
    return this.fs.with(
      path,
      ({ fd, stat }) => {
        if (fd === undefined || !stat?.isFile())
          throw new Error(`${JSON.stringify(path)} is not a file`);
        if (stat.size > maxBytes) throw new Error(`${JSON.stringify(path)} is too large`);
        // Reopened through the handle: the very file judged above, wherever its name went since.
        return openSync(at(fd), constants.O_RDONLY);
      },
      NO_LINKS,
    );
  }

  /** A file's text (at most 64 MiB), or null when there is none to read. */
  readText(path: string): string | null {
    let fd: number;
    try {
      fd = this.openFile(path, MAX_TEXT_BYTES);
    } catch {
      return null;
    }
    try {
      return readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  }

  private scan(): void {
    if (this.file !== undefined) this.add("loom", this.file);
    else this.scanDir(".", 0);
  }

  private scanDir(dir: string, depth: number): void {
    let entries: Dirent[];
    try {
      entries = this.fs.with(
        dir,
        ({ fd, stat }) =>
          fd !== undefined && stat?.isDirectory()
            ? readdirSync(at(fd), { withFileTypes: true })
            : [],
        NO_LINKS,
      );
    } catch {
      return; // gone, or no longer a folder inside
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files = entries.filter((e) => e.isFile());
    if (files.some((e) => e.name === "results.jsonl"))
      this.add("eval", dir, files.find((e) => isLoomName(e.name))?.name);
    for (const e of entries) {
      // A symbolic link is not listed (a link's entry is neither a folder nor a file here).
      if (e.isDirectory() && depth < 2) this.scanDir(inDir(dir, e.name), depth + 1);
      else if (e.isFile() && isLoomName(e.name)) this.add("loom", inDir(dir, e.name));
    }
  }

  private add(kind: Source["kind"], path: string, loomName?: string): void {
    // An eval run is known by its results file: a folder may be a run and hold a loom.
    const key = kind === "eval" ? inDir(path, "results.jsonl") : path;
    if (this.byPath.has(key)) return;
    if (kind === "loom") {
      const id = String(this.next++);
      const index = new LoomViewerIndex(path, () => this.openFile(path));
      this.byPath.set(key, { id, kind, name: path, path, index });
      return;
    }
    const loomPath = loomName ? inDir(path, loomName) : null;
    if (loomPath) this.add("loom", loomPath);
    const loom = loomPath ? (this.byPath.get(loomPath)?.id ?? null) : null;
    this.byPath.set(key, { id: String(this.next++), kind, name: path, path, loom });
  }
}
