#!/usr/bin/env node
// `spell`. What this command line needs is decided first (src/cli/start.ts, bundled as
// dist/start.cjs): help oclif rendered at build time (dist/start-pages.json), the run bundle for a
// plain `spell run FILE`, or the whole oclif CLI. See ARCHITECTURE.md "Start-up".
//
// bin/ is CommonJS (bin/package.json): Node starts a CommonJS entry a few milliseconds sooner
// than an ES module, having no ES module loader to set up.
"use strict";
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");
// SPELLBOOK_TRAIN_CODE_CACHE is set only by the build (scripts/bundle.mjs).
const writeCache = process.env["SPELLBOOK_TRAIN_CODE_CACHE"] === "1";
const plan = startPlan();
if (plan.kind === "print") {
  // As oclif's Command module does when it loads: a reader that closed stdout early
  // (`spell --help | true`) is not an error. (The run bundle attaches the same when its stream
  // opens: a run writing to a file or pipe does without it, src/cli/stdio.ts.)
  process.stdout.on("error", (err) => {
    if (err && err.code === "EPIPE") return;
    throw err;
  });
}
// Required only when a bundle loads: printed help needs none of it (vm, the cache check).
const loadBundle = (options) => require("./load.js").loadBundle(options);
if (plan.kind === "print") {
  process.stdout.write(plan.text);
} else if (plan.kind === "run") {
  const run = loadBundle({ bundle: "run.cjs", writeCache });
  // An error that escapes the cast is printed by oclif's handler, as if oclif had run it.
  run.exports.run(plan.file, plan.flags).catch((err) => loadBundle().exports.handle(err));
} else {
  loadBundle({ writeCache }).exports.execute({ dir: root });
}

/** The plan for this process; oclif's when the start-up files are not built. */
function startPlan() {
  let start, data, pjson;
  try {
    start = require("../dist/start.cjs");
    data = JSON.parse(readFileSync(join(root, "dist", "start.json"), "utf8"));
    pjson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  } catch {
    return { kind: "oclif" };
  }
  const arch = process.arch === "ia32" ? "x86" : process.arch;
  return start.planStart(
    {
      argv: process.argv.slice(2),
      env: process.env,
      // Read only for a command line that has a help page, which then prints on the stream:
      // reading process.stdout opens Node's stream on it (streams, net), which a `spell run`
      // writing to a file or pipe does without (src/cli/stdio.ts).
      get stdoutIsTTY() {
        return process.stdout.isTTY === true;
      },
      // As oclif's Config makes it (but for WSL, which oclif names `wsl`: see start.ts).
      userAgent: `${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}`,
    },
    data,
    // The help pages, read only for a command line that has one; none when they are not built.
    () => {
      try {
        return JSON.parse(readFileSync(join(root, "dist", "start-pages.json"), "utf8"));
      } catch {
        return {};
      }
    },
  );
}
