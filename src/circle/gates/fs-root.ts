import { realpathSync } from "node:fs";
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../core/errors.js";

/**
 * A directory that file gates cannot leave. Paths are virtual: "/a.txt" and "a.txt" both
 * mean root/a.txt. `..` and symlinks that point outside are refused (security is structural).
 */
export class FsRoot {
  readonly root: string;
  private readonly realRoot: string;

  constructor(root: string) {
    this.root = resolve(root);
    try {
      this.realRoot = realpathSync(this.root);
    } catch {
      throw new ConfigError(
        "gate_root_missing",
        `gate root ${JSON.stringify(root)} does not exist`,
      );
    }
  }

  /** The host path for a virtual path, or an error naming only the virtual path. */
  resolve(path: unknown): string {
    if (typeof path !== "string") throw new Error("path must be a string");
    if (climbsOut(path)) throw new Error(`path ${JSON.stringify(path)} is outside the gate root`);
    const virtual = normalize(isAbsolute(path) ? path : `/${path}`);
    const host = join(this.root, virtual);
    if (!inside(this.root, host))
      throw new Error(`path ${JSON.stringify(path)} is outside the gate root`);
    let real: string;
    try {
      real = realpathSync(host);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        throw new Error(`ENOENT: no such file or directory, ${JSON.stringify(path)}`);
      }
      throw new Error(`cannot resolve ${JSON.stringify(path)}`);
    }
    // A symlink inside the root may point anywhere: judge where it really lands.
    if (!inside(this.realRoot, real)) {
      throw new Error(`path ${JSON.stringify(path)} is outside the gate root`);
    }
    return real;
  }
  /** Runs a filesystem call; a host error comes back naming only the virtual path. */
  guard<T>(path: unknown, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw hostError(err, path);
    }
  }
}

/** Errors of the host filesystem, with the host path replaced by the virtual one. */
export function hostError(err: unknown, path: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code) return new Error(`${code}: ${JSON.stringify(path)}`);
  return err instanceof Error ? err : new Error(String(err));
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
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
