/**
 * What `spell run FILE` does with a document that is not a cantrip: one entry per kind (a
 * KindName, spell/kinds/index.ts, where kinds are named). Each returns the exit code (io.ts EXIT).
 */
import type { KindName, LoadedDocument } from "../spell/index.js";
import type { CliIO } from "./io.js";
import type { RunFlags } from "./run-flags.js";

export type KindRunner = (loaded: LoadedDocument, flags: RunFlags, io: CliIO) => Promise<number>;

export const kindRunners: Readonly<Partial<Record<KindName, KindRunner>>> = {
  // Lazy: the council's runner loads only when a council runs.
  council: async (loaded, flags, io) =>
    (await import("./council-run.js")).runCouncil(loaded, flags, io),
  // `spell run FLOW` is `spell flow FLOW` on stdin.
  flow: async (loaded, _flags, io) => {
    const { runFlowLines } = await import("./flow-run.js");
    return runFlowLines(loaded, process.stdin, {}, io);
  },
  query: async (loaded, flags, io) => (await import("./query-run.js")).runQuery(loaded, flags, io),
};
