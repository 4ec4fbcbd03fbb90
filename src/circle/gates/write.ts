import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type * as Crypto from "node:crypto";
import { basename, dirname, join } from "node:path";
import { ConfigError } from "../../core/errors.js";
import type { Gate } from "../gate.js";
import { FsRoot } from "./fs-root.js";
import { lazyBuiltin } from "../../core/builtin.js";

const crypto = lazyBuiltin<typeof Crypto>("node:crypto");

export const DEFAULT_MAX_WRITE_BYTES = 1024 * 1024;

export interface WriteOptions {
  /** Directory the gate may write below; it must be declared writable. */
  root: string;
  writable: boolean;
  maxBytes?: number;
}

/**
 * Writes a UTF-8 file inside a writable root (seed 002 "Gates"): the whole file is replaced at
 * once (a temporary file renamed over it), never through a path or symlink that leaves the root.
 */
export function writeGate(options: WriteOptions): Gate {
  if (!options.writable)
    throw new ConfigError(
      "root_not_writable",
      "write needs a writable root: write: { root: ./work, writable: true }",
    );
  const fs = new FsRoot(options.root);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_WRITE_BYTES;
  return {
    name: "write",
    description:
      "Write a UTF-8 text file (replacing it whole). Paths are relative to the gate's root; missing folders are made.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, e.g. notes/a.txt" },
        content: { type: "string", description: "The file's new content." },
      },
      required: ["path", "content"],
    },
    execute(args) {
      const { path, content } = args as { path: unknown; content: unknown };
      if (typeof content !== "string") throw new Error("content must be a string");
      const size = Buffer.byteLength(content);
      if (size > maxBytes)
        throw new Error(`content is ${size} bytes; write takes at most ${maxBytes}`);
      const host = target(fs, path);
      return fs.guard(path, () => {
        const tmp = join(
          dirname(host),
          `.${basename(host)}.${crypto().randomBytes(4).toString("hex")}.tmp`,
        );
        try {
          writeFileSync(tmp, content, { flag: "wx" });
          renameSync(tmp, host); // atomic: readers see the old file or the new one
        } catch (err) {
          rmSync(tmp, { force: true });
          throw err;
        }
        return `wrote ${size} bytes to ${String(path)}`;
      });
    },
  };
}

/** The host path to write: an existing file judged where it really lands; a new one's folder made inside the root. */
function target(fs: FsRoot, path: unknown): string {
  if (typeof path !== "string" || path.trim() === "") throw new Error("path must be a file path");
  try {
    const host = fs.resolve(path);
    if (lstatSync(host).isDirectory())
      throw new Error(`EISDIR: ${JSON.stringify(path)} is a directory`);
    return host;
  } catch (err) {
    if (!String((err as Error).message).startsWith("ENOENT")) throw err;
  }
  // A new file: the nearest folder that exists must be inside the root; the rest is made there.
  const parts = path.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
  const name = parts.pop();
  if (!name || name === "..") throw new Error("path must be a file path");
  let i = parts.length;
  let base = "";
  for (; i >= 0; i--) {
    try {
      base = fs.resolve(parts.slice(0, i).join("/") || ".");
      break;
    } catch (err) {
      if (!String((err as Error).message).startsWith("ENOENT")) throw err;
    }
  }
  const dir = join(base, ...parts.slice(i));
  fs.guard(path, () => mkdirSync(dir, { recursive: true }));
  return join(fs.resolve(parts.join("/") || "."), name);
}
