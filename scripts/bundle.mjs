#!/usr/bin/env node
// Bundles the CLI into dist/spell.cjs, writes oclif.manifest.json, and trains its V8 code cache (dist/spell.cjs.v8cache), so
// `spell` starts without resolving ~150 module files and compiling them (see bin/load.js).
// Provider SDKs and QuickJS stay outside: they load from node_modules on first use.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, "dist", "spell.cjs");

// The old cache goes first: whatever fails below, no cache of another bundle is left beside it.
rmSync(`${outfile}.v8cache`, { force: true });
await build({
  entryPoints: [join(root, "dist", "commands", "main.js")],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // import.meta.url of the bundled modules: the bundle's own location.
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__bundleUrl" },
  // import() becomes require(): a vm.Script (bin/load.js) cannot import() on Node 20 without
  // --experimental-vm-modules, and the externals all ship CommonJS builds, except the ACP SDK
  // (ESM only), which Node >= 20.19 requires as ESM (`spell acp` only).
  supported: { "dynamic-import": false },
  external: [
    "openai",
    "@anthropic-ai/sdk",
    "quickjs-emscripten",
    "@jitl/*",
    "typescript",
    "fastify",
    "@agentclientprotocol/sdk",
  ],
  logLevel: "warning",
});

// The code medium's worker thread (src/circle/mediums/code/worker-main.ts): its own file, beside
// the CLI bundle and the library's modules, loaded only when a code sandbox opens.
await build({
  entryPoints: [join(root, "dist", "circle", "mediums", "code", "worker-main.js")],
  outfile: join(root, "dist", "sandbox-worker.mjs"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["quickjs-emscripten", "@jitl/*"],
  logLevel: "warning",
});

// The manifest lists the commands for help without loading them; training must see it.
const manifest = spawnSync(process.execPath, [join(root, "scripts", "manifest.mjs")], {
  stdio: "inherit",
});
if (manifest.status !== 0) throw new Error("writing oclif.manifest.json failed");

// Training: each run compiles the code its command needs and saves the cache at exit; the next
// run starts from that cache and adds to it. Conversation spells suffice: a code sandbox runs in
// a worker thread (dist/sandbox-worker.mjs), which this cache does not cover.
const runs = [
  ["--help"],
  ["run", "--help"],
  ["validate", "grimoire/04-cantrip.yaml"],
  ["run", "grimoire/04-cantrip.yaml", "--loom", "memory", "--quiet"],
  ["run", "grimoire/04-cantrip.yaml", "--loom", "memory", "--json"],
];
for (const args of runs) {
  const r = spawnSync(process.execPath, [join(root, "bin", "run.js"), ...args], {
    cwd: root,
    env: { ...process.env, SPELLBOOK_TRAIN_CODE_CACHE: "1" },
    encoding: "utf8",
  });
  if (r.status !== 0) {
    throw new Error(`training run \`spell ${args.join(" ")}\` exited ${r.status}:\n${r.stderr}`);
  }
}

// The cache the runs left must be the one a user's `spell` accepts.
const check = spawnSync(
  process.execPath,
  [
    "--input-type=module",
    "-e",
    'const { loadBundle } = await import("./bin/load.js"); process.stdout.write(String(loadBundle().cacheRejected));',
  ],
  { cwd: root, encoding: "utf8" },
);
if (check.stdout !== "false") {
  throw new Error(`the trained code cache is not accepted:\n${check.stdout}${check.stderr}`);
}
