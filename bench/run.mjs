#!/usr/bin/env node
// `npm run bench`: builds once, then runs every bench/*.bench.mjs in its own process.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
execFileSync("npm", ["run", "build", "--silent"], { cwd: join(here, ".."), stdio: "inherit" });
let failed = 0;
for (const file of readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs"))
  .sort()) {
  if (only.length && !only.some((o) => file.includes(o))) continue;
  // The scale bench runs 3,000 queued casts (minutes on a shared machine): only when asked.
  if (file === "scale.bench.mjs" && !only.length && !process.env.BENCH_SCALE_N) {
    console.log(
      `\n## ${file}\nnot run: it takes minutes; npm run bench -- scale (BENCH_SCALE_N=200 for fewer casts)`,
    );
    continue;
  }
  console.log(`\n## ${file}`);
  try {
    execFileSync(process.execPath, ["--expose-gc", join(here, file)], { stdio: "inherit" });
  } catch {
    failed++;
  }
}
process.exit(failed ? 1 : 0);
