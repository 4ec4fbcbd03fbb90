import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { isAbsolute, normalize, posix, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../core/errors.js";

/** Linux's O_PATH (a handle to a name that opens nothing); node:fs does not export it. */
export const O_PATH = 0o10000000;
/** How many symlinks one path may pass through, as the kernel's own limit. */
const MAX_LINKS = 40;

/** A path opened inside the root: an O_PATH handle to it and the folder that holds it. */
export interface Opened {
  /** The handle (O_PATH), or undefined when the last name does not exist (`missingOk`). */
  fd: number | undefined;
  stat: Stats | undefined;
  /** The folder holding the last name (an O_PATH handle), and that name. */
  dir: number;
  name: string;
  /** When `name` is missing: the names after it, not walked (empty when it was the last). */
  rest?: string[];
}

/** The host path that reaches what `fd` is open on, or `name` inside it, without a lookup above it. */
export const at = (fd: number, name?: string): string =>
  name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;

/**
 * A directory that file gates cannot leave. Paths are virtual: "/a.txt" and "a.txt" both
 * mean root/a.txt. `..` and symlinks that point outside are refused (security is structural).
 *
 * A path is walked one name at a time from a handle on the root, each name looked up in the
 * folder already opened (through /proc/self/fd) without following a symlink; a symlink is read
 * and its target walked the same way. So a folder swapped for a symlink between a check and an
 * open leads nowhere: there is no check apart from the open.
 *
 * With `hold`, the root itself is opened once, here, and every walk starts from that handle: the
 * root's own name (or a folder above it) swapped for a link later leads nowhere either, and a
 * root moved elsewhere is still the one walked (`spell view`, which serves a folder for long;
 * `close()` lets go of it). Without, each walk opens the root by its real path.
 */
export class FsRoot {
  readonly root: string;
  private readonly realRoot: string;
  /** The handle on the root every walk starts from (`hold`), or undefined. */
  private held: number | undefined;
  private closed = false;

  constructor(root: string, options: { hold?: boolean } = {}) {
    this.root = resolve(root);
    try {
      this.realRoot = realpathSync(this.root);
    } catch {
      throw new ConfigError(
        "gate_root_missing",
        `gate root ${JSON.stringify(root)} does not exist: make the folder, or point root: at` +
          " one (a relative root is read from the spell's folder)",
      );
    }
    if (!existsSync("/proc/self/fd"))
      throw new ConfigError(
        "gate_root_unsupported",
        "file gates need Linux's /proc/self/fd to stay inside their root",
      );
    if (options.hold) this.held = openSync(this.realRoot, O_PATH | constants.O_DIRECTORY);
  }

  /** Lets go of the held root (`hold`); a walk after it throws. */
  close(): void {
    if (this.held !== undefined && !this.closed) closeSync(this.held);
    this.closed = true;
  }

  /**
   * Opens a virtual path inside the root. With `makeDirs`, missing folders on the way are made;
   * with `missingOk`, a missing last name comes back with no handle; with `partial`, so does a
   * missing folder, with the names after it in `rest`; with `noLinks`, a symlink on the way is
   * refused even when it leads inside. The caller closes it (`close`).
   */
  open(
    path: unknown,
    options: { makeDirs?: boolean; missingOk?: boolean; partial?: boolean; noLinks?: boolean } = {},
  ): Opened {
    if (typeof path !== "string") throw new Error("path must be a string");
    if (climbsOut(path)) throw outside(path);
    const queue = names(normalize(isAbsolute(path) ? path : `/${path}`));
    const stack = [this.openRoot()];
    let links = 0;
    try {
      while (queue.length > 0) {
        const name = queue.shift()!;
        if (name === "..") {
          if (stack.length === 1) throw outside(path);
          closeSync(stack.pop()!);
          continue;
        }
        const dir = stack[stack.length - 1]!;
        const last = queue.length === 0;
        let fd: number;
        try {
          fd = openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "ENOENT" && ((last && options.missingOk) || options.partial)) {
            return { fd: undefined, stat: undefined, dir: this.keep(stack), name, rest: queue };
          }
          if (code === "ENOENT" && !last && options.makeDirs && links++ < MAX_LINKS) {
            mkdirQuiet(at(dir, name));
            queue.unshift(name); // open what is there now, whatever it is
            continue;
          }
          if (code === "ENOENT")
            throw new Error(`ENOENT: no such file or directory, ${quote(path)}`);
          throw hostError(err, path);
        }
        const stat = fstatSync(fd);
        if (stat.isSymbolicLink()) {
          closeSync(fd);
          if (options.noLinks) throw new Error(`ELOOP: ${quote(path)} passes through a link`);
          if (++links > MAX_LINKS) throw new Error(`ELOOP: ${quote(path)}`);
          queue.unshift(...this.linkTarget(dir, name, path, stack));
          continue;
        }
        if (last) return { fd, stat, dir: this.keep(stack), name };
        if (!stat.isDirectory()) {
          closeSync(fd);
          throw new Error(`ENOTDIR: ${quote(path)}`);
        }
        stack.push(fd);
      }
      // The path names a folder reached as a whole (the root, or a link's target ending in `..`).
      const fd = openSync(at(stack[stack.length - 1]!), O_PATH);
      return { fd, stat: fstatSync(fd), dir: this.keep(stack), name: "." };
    } catch (err) {
      for (const fd of stack) closeSync(fd);
      throw err;
    }
  }

  /** A new handle on the root: reopened through the held one, or opened by its real path. */
  private openRoot(): number {
    if (this.closed) throw new Error("the gate root was closed");
    const from = this.held === undefined ? this.realRoot : at(this.held);
    return openSync(from, O_PATH | constants.O_DIRECTORY);
  }

  /** Where an opened handle is, relative to the root ("" for the root, else "a/b"). */
  relativeOf(fd: number): string {
    const rel = relative(this.realRoot, readlinkSync(at(fd)));
    if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel))
      throw new Error("a folder moved outside the gate root");
    return rel.split(sep).join("/");
  }

  /**
   * Where a path leads inside the root, as `unless:` globs see it (issue 38): "notes/a.txt",
   * relative to the root, every link followed as `open` follows it, `..` resolved; names past a
   * missing folder are read as written (they are made as written). Undefined when the path
   * leaves the root or cannot be walked. Makes nothing and opens only O_PATH handles.
   */
  reached(path: unknown): string | undefined {
    let opened: Opened;
    try {
      opened = this.open(path, { missingOk: true, partial: true });
    } catch {
      return undefined;
    }
    try {
      return this.landed(opened);
    } catch {
      return undefined;
    } finally {
      close(opened);
    }
  }

  /**
   * Where an opened path is, as `reached` says it ("notes/a.txt"); throws when it left the root.
   * With `judged` (what an `unless:` glob exempted, `GateContext.judged`), throws unless it is
   * that very place: a folder swapped for a link between the judgement and the open.
   */
  landed(opened: Opened, judged?: string): string {
    const names = [this.relativeOf(opened.dir), opened.name, ...(opened.rest ?? [])];
    const rel = posix.normalize(names.filter((n) => n !== "").join("/"));
    if (rel === ".." || rel.startsWith("../")) throw new Error("a path left the gate root");
    const where = rel === "." ? "" : rel;
    if (judged !== undefined && where !== judged)
      throw new Error(
        `${quote(judged)} changed since it was approved: it now leads to ${quote(where)}`,
      );
    return where;
  }

  /** Runs `fn` on an opened path and closes its handles after. */
  with<T>(path: unknown, fn: (o: Opened) => T, options?: Parameters<FsRoot["open"]>[1]): T {
    const opened = this.open(path, options);
    try {
      return this.guard(path, () => fn(opened));
    } finally {
      close(opened);
    }
  }

  /** Runs a filesystem call; a host error comes back naming only the virtual path. */
  guard<T>(path: unknown, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw hostError(err, path);
    }
  }

  /** The names a symlink's target puts in front of the rest of the walk. */
  private linkTarget(dir: number, name: string, path: string, stack: number[]): string[] {
    let target: string;
    try {
      target = readlinkSync(at(dir, name));
    } catch {
      return [name]; // it changed since it was opened: look again
    }
    if (!isAbsolute(target)) return target.split("/").filter((n) => n !== "" && n !== ".");
    const rel = [this.realRoot, this.root]
      .map((r) => relative(r, target))
      .find((r) => r === "" || (!r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r)));
    if (rel === undefined) throw outside(path);
    while (stack.length > 1) closeSync(stack.pop()!);
    return rel.split(sep).filter((n) => n !== "");
  }

  /** Closes every folder handle of a walk but the last, which it returns. */
  private keep(stack: number[]): number {
    const dir = stack.pop()!;
    for (const fd of stack) closeSync(fd);
    stack.length = 0;
    return dir;
  }
}

/** Closes the handles of an opened path. */
export function close(opened: Opened): void {
  if (opened.fd !== undefined) closeSync(opened.fd);
  closeSync(opened.dir);
}

/** Errors of the host filesystem, with the host path replaced by the virtual one. */
export function hostError(err: unknown, path: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code) return new Error(`${code}: ${JSON.stringify(path)}`);
  return err instanceof Error ? err : new Error(String(err));
}

const quote = (path: string): string => JSON.stringify(path);
const outside = (path: string): Error => new Error(`path ${quote(path)} is outside the gate root`);
const names = (path: string): string[] => path.split(/[\\/]+/).filter((n) => n !== "" && n !== ".");

function mkdirQuiet(path: string): void {
  try {
    mkdirSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

/** True when `..` segments climb above the start, e.g. "../x" or "a/../../x". */
function climbsOut(path: string): boolean {
  let depth = 0;
  for (const seg of path.split(/[\\/]+/)) {
    if (seg === "..") depth--;
    else if (seg !== "" && seg !== ".") depth++;
    if (depth < 0) return true;
  }
  return false;
}
