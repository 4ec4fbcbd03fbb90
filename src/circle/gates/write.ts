import { renameSync, rmSync, writeFileSync } from "node:fs";
import type * as Crypto from "node:crypto";
import { ConfigError } from "../../core/errors.js";
import type { Gate } from "../gate.js";
import { at, FsRoot } from "./fs-root.js";
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
    reached: (args) => ({ path: fs.reached(args["path"]) }),
    execute(args, ctx) {
      const { path, content } = args as { path: unknown; content: unknown };
      if (typeof content !== "string") throw new Error("content must be a string");
      const size = Buffer.byteLength(content);
      if (size > maxBytes)
        throw new Error(`content is ${size} bytes; write takes at most ${maxBytes}`);
      if (typeof path !== "string" || path.trim() === "" || /[\\/]$/.test(path))
        throw new Error("path must be a file path");
      // Missing folders are made inside the root; an existing file is judged where it lands.
      return fs.with(
        path,
        (opened) => {
          const { dir, name, stat } = opened;
          if (ctx.judged?.["path"] !== undefined) fs.landed(opened, ctx.judged["path"]);
          if (name === "." || stat?.isDirectory())
            throw new Error(`EISDIR: ${JSON.stringify(path)} is a directory`);
          // Both names are looked up in the folder already opened: a swapped folder changes nothing.
          const tmp = `.${name}.${crypto().randomBytes(4).toString("hex")}.tmp`;
          try {
            writeFileSync(at(dir, tmp), content, { flag: "wx" });
            renameSync(at(dir, tmp), at(dir, name)); // atomic: readers see the old file or the new one
          } catch (err) {
            rmSync(at(dir, tmp), { force: true });
            throw err;
          }
          return `wrote ${size} bytes to ${path}`;
        },
        { makeDirs: true, missingOk: true },
      );
    },
  };
}
