import { readFileSync } from "node:fs";
import type { Gate } from "../gate.js";
import { at, FsRoot } from "./fs-root.js";

const MAX_READ_BYTES = 4 * 1024 * 1024;

export interface ReadOptions {
  /** Directory the gate may read below (CIRCLE-10: injected at construction). */
  root: string;
  name?: string;
  ephemeral?: boolean;
}

export function readGate(options: ReadOptions): Gate {
  const fs = new FsRoot(options.root);
  return {
    name: options.name ?? "read",
    description: "Read a UTF-8 text file. Paths are relative to the gate's root.",
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "File path, e.g. notes/a.txt" } },
      required: ["path"],
    },
    ephemeral: options.ephemeral ?? false,
    reached: (args) => ({ path: fs.reached(args["path"]) }),
    execute(args, ctx) {
      const path = args["path"];
      return fs.with(path, (opened) => {
        const { fd, stat } = opened;
        if (ctx.judged?.["path"] !== undefined) fs.landed(opened, ctx.judged["path"]);
        if (fd === undefined || stat === undefined)
          throw new Error(`ENOENT: ${JSON.stringify(path)}`);
        if (stat.isDirectory()) throw new Error(`EISDIR: ${JSON.stringify(path)} is a directory`);
        // A FIFO or device would block the whole process on read: only regular files.
        if (!stat.isFile()) throw new Error(`${JSON.stringify(path)} is not a regular file`);
        if (stat.size > MAX_READ_BYTES) {
          throw new Error(`file is ${stat.size} bytes; read returns at most ${MAX_READ_BYTES}`);
        }
        // Reopened through the handle: the very file judged above, wherever its name went since.
        return readFileSync(at(fd), "utf8");
      });
    },
  };
}
