/**
 * The entry of the bundled CLI (dist/spell.cjs, made by scripts/bundle.mjs): oclif's runner and
 * every command, found by oclif through `COMMANDS` (the "explicit" command strategy of
 * package.json). Provider SDKs and QuickJS stay outside the bundle and load on first use.
 */
import Dna from "../commands/dna/index.js";
import DnaVerify from "../commands/dna/verify.js";
import FlowRun from "../commands/flow.js";
import LoomExport from "../commands/loom/export.js";
import Run from "../commands/run.js";
import Test from "../commands/test.js";
import Validate from "../commands/validate.js";

export { execute } from "@oclif/core/execute";

export const COMMANDS = {
  run: Run,
  test: Test,
  validate: Validate,
  "loom:export": LoomExport,
  flow: FlowRun,
  dna: Dna,
  "dna:verify": DnaVerify,
};
