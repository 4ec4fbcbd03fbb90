#!/usr/bin/env node
// `spell`. What this command line needs is decided first (src/cli/start.ts, bundled as
// dist/start.mjs): help oclif rendered at build time (dist/start.json), the run bundle for a
// plain `spell run FILE`, or the whole oclif CLI. See ARCHITECTURE.md "Start-up".
import { readFileSync } from "node:fs";
import { URL } from "node:url";
import { loadBundle } from "./load.js";

// SPELLBOOK_TRAIN_CODE_CACHE is set only by the build (scripts/bundle.mjs).
const writeCache = process.env["SPELLBOOK_TRAIN_CODE_CACHE"] === "1";
const plan = await startPlan();
if (plan.kind === "print") {
  process.stdout.write(plan.text);
} else if (plan.kind === "run") {
  const run = loadBundle({ bundle: "run.cjs", writeCache });
  await run.exports.run(plan.file, plan.flags).catch(async (err) => {
    // As if oclif had run the command: its handler prints the error and exits.
    await loadBundle().exports.handle(err);
  });
} else {
  const cli = loadBundle({ writeCache });
  await cli.exports.execute({ dir: import.meta.url });
}

/** The plan for this process; oclif's when the start-up files are not built. */
async function startPlan() {
  const dist = new URL("../dist/", import.meta.url);
  let start, data, pjson;
  try {
    start = await import(new URL("start.mjs", dist).href);
    data = JSON.parse(readFileSync(new URL("start.json", dist), "utf8"));
    pjson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  } catch {
    return { kind: "oclif" };
  }
  const arch = process.arch === "ia32" ? "x86" : process.arch;
  return start.planStart(
    {
      argv: process.argv.slice(2),
      env: process.env,
      stdoutIsTTY: process.stdout.isTTY === true,
      // As oclif's Config makes it (but for WSL, which oclif names `wsl`: see start.ts).
      userAgent: `${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}`,
    },
    data,
  );
}
