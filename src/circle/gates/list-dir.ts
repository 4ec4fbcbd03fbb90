import { readdirSync } from "node:fs";
import type { Gate } from "../gate.js";
import { at, FsRoot } from "./fs-root.js";

export function listDirGate(options: { root: string }): Gate {
  const fs = new FsRoot(options.root);
  return {
    name: "list_dir",
    description:
      "List a directory's entries (directories end with /). Paths are relative to the gate's root.",
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "Directory path; default the root." } },
    },
    reached: (args) => ({ path: fs.reached(args["path"]) }),
    execute(args, ctx) {
      const path = args["path"] ?? ".";
      return fs.with(path, (opened) => {
        const { fd, stat } = opened;
        if (ctx.judged?.["path"] !== undefined) fs.landed(opened, ctx.judged["path"]);
        if (fd === undefined || !stat?.isDirectory())
          throw new Error(`ENOTDIR: ${JSON.stringify(path)}`);
        return readdirSync(at(fd), { withFileTypes: true })
          .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
          .sort();
      });
    },
  };
}
