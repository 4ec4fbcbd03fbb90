/**
 * The entry of the bundled CLI (dist/spell.cjs, made by scripts/bundle.mjs): oclif's runner and
 * every command, found by oclif through `COMMANDS` (the "explicit" command strategy of
 * package.json). Provider SDKs and QuickJS stay outside the bundle and load on first use.
 */
import Acp from "./acp.js";
import Council from "./council.js";
import Dna from "./dna/index.js";
import Familiar from "./familiar.js";
import DnaVerify from "./dna/verify.js";
import Eval from "./eval.js";
import FlowRun from "./flow.js";
import LoomExport from "./loom/export.js";
import LoomFork from "./loom/fork.js";
import LoomImport from "./loom/import.js";
import LoomReward from "./loom/reward.js";
import LoomStats from "./loom/stats.js";
import LoomThread from "./loom/thread.js";
import LoomTree from "./loom/tree.js";
import LoomView from "./loom/view.js";
import Mcp from "./mcp.js";
import Inspect from "./inspect.js";
import Lock from "./lock.js";
import Login from "./login.js";
import Pull from "./pull.js";
import Push from "./push.js";
import LoomOtel from "./loom/otel.js";
import Run from "./run.js";
import Serve from "./serve.js";
import Summon from "./summon.js";
import Test from "./test.js";
import Validate from "./validate.js";
import View from "./view.js";
import Worker from "./worker.js";

import { executeWith } from "./execute.js";

/** oclif's printing of an error that escaped a command: bin/run.js uses it for the run bundle's. */
export { handle } from "@oclif/core/handle";

export const COMMANDS = {
  acp: Acp,
  council: Council,
  eval: Eval,
  familiar: Familiar,
  run: Run,
  serve: Serve,
  summon: Summon,
  test: Test,
  validate: Validate,
  view: View,
  "loom:export": LoomExport,
  "loom:tree": LoomTree,
  "loom:stats": LoomStats,
  "loom:reward": LoomReward,
  "loom:thread": LoomThread,
  "loom:fork": LoomFork,
  "loom:view": LoomView,
  "loom:otel": LoomOtel,
  "loom:import": LoomImport,
  flow: FlowRun,
  dna: Dna,
  "dna:verify": DnaVerify,
  mcp: Mcp,
  worker: Worker,
  push: Push,
  pull: Pull,
  inspect: Inspect,
  lock: Lock,
  login: Login,
};

/** bin/run.js calls this: `spell help X`, "did you mean" for unknown commands and flags (exit 3). */
export const execute = (options: { dir: string }): Promise<unknown> =>
  executeWith(COMMANDS, options);
