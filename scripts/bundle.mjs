#!/usr/bin/env node
// Bundles the CLI, writes oclif.manifest.json and the start-up pages, and trains the bundles' V8
// code caches, so `spell` starts without resolving ~150 module files and compiling them (see
// bin/load.js and ARCHITECTURE.md "Start-up"):
// - dist/spell.cjs: oclif and every command;
// - dist/run.cjs: `spell run` without oclif (src/cli/run-main.ts);
// - dist/start.cjs + dist/start.json: what bin/run.js decides with; dist/start-pages.json: the
//   help it prints.
// Provider SDKs, the MCP and A2A SDKs, QuickJS and the bash grammar stay outside: they load from
// node_modules on first use. So do pg (a postgres:// loom), ajv's compiler (the eval kind, `spell
// run --repeat`, MCP; the spell validators are generated code that needs none of it) and
// cli-progress (eval's progress bar): a fifth of dist/run.cjs, which a plain `spell run` read,
// summed and kept in its cache without running it.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundleViewer } from "./bundle-viewer.mjs";
import { plainEnv } from "./start-pages.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const BUNDLES = { "spell.cjs": "commands/main.js", "run.cjs": "cli/run-main.js" };

// The old caches and pages go first: whatever fails below, nothing of another build is left.
for (const name of Object.keys(BUNDLES)) rmSync(join(dist, `${name}.v8cache`), { force: true });
rmSync(join(dist, "start.json"), { force: true });
rmSync(join(dist, "start-pages.json"), { force: true });
for (const [name, entry] of Object.entries(BUNDLES)) {
  await build({
    entryPoints: [join(dist, entry)],
    outfile: join(dist, name),
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    // No comments or indentation: a third less to read at each start, and ASCII only (esbuild
    // escapes the rest), which bin/load.js decodes faster. Names stay, for stack traces.
    minifyWhitespace: true,
    // import.meta.url of the bundled modules: the bundle's own location, made into a URL when a
    // module first asks (pathToFileURL at every start cost ~1 M instructions).
    banner: {
      js: 'var __bundleMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };',
    },
    define: { "import.meta.url": "__bundleMeta.url" },
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
      "@modelcontextprotocol/sdk",
      "@a2a-js/sdk",
      "playwright-core",
      "@opentelemetry/*",
      "bullmq",
      "ioredis",
      "undici",
      // The bash grammar (approve: command: globs) finds its .wasm files beside its own modules.
      "web-tree-sitter",
      "pg",
      "ajv",
      "cli-progress",
    ],
    logLevel: "warning",
  });
}
// esbuild names each lazily initialised module by an object literal with one method, keyed by
// the module's path: `var init_x = __esm({ "dist/x.js"() {…} })`. V8 gives all those literals one
// map and adds a transition from it for every key: ~530 keys for dist/run.cjs, each added by
// copying the whole transition array (~7 M instructions of every start). A literal with
// `__proto__: null` is made in dictionary mode, which has no transitions; the helpers find the
// method as before (its own property names), and it keeps its name for stack traces.
for (const name of Object.keys(BUNDLES)) {
  const file = join(dist, name);
  const text = readFileSync(file, "latin1");
  let made = 0;
  const out = text.replace(/=(__esm|__commonJS)\(\{"/g, (_, helper) => {
    made++;
    return `=${helper}({__proto__:null,"`;
  });
  const calls = text.match(/\b(__esm|__commonJS)\(/g)?.length ?? 0;
  if (made !== calls) {
    throw new Error(`dist/${name}: ${calls} __esm/__commonJS calls, ${made} in the expected shape`);
  }
  writeFileSync(file, out, "latin1");
}
// bin/load.js decodes an ASCII bundle as Latin-1; anything else is decoded as UTF-8 into a
// two-byte string, twice the heap and slower to read at every start. esbuild escapes strings but
// not a regular expression's literal characters: write those as \u escapes in the source.
{
  const bytes = readFileSync(join(dist, "run.cjs"));
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at >= 0) {
    const around = bytes.subarray(Math.max(0, at - 80), at + 20).toString("utf8");
    throw new Error(`dist/run.cjs is not ASCII at byte ${at}: …${around}…`);
  }
}
// The decision of bin/run.js: small, no dependency, loaded by every `spell`.
await build({
  entryPoints: [join(dist, "cli", "start.js")],
  outfile: join(dist, "start.cjs"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  logLevel: "warning",
});

// The sandbox's worker thread (src/sandbox/worker-main.ts): its own file, beside the CLI bundle
// and the library's modules, loaded only when a code sandbox opens.
await build({
  entryPoints: [join(root, "dist", "sandbox", "worker-main.js")],
  outfile: join(root, "dist", "sandbox-worker.mjs"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["quickjs-emscripten", "@jitl/*"],
  logLevel: "warning",
});

// The terminal UI of `spell summon` / `spell familiar` (src/cli/tui/): an ES module of its own,
// imported only when a session opens it (src/cli/tui-load.ts). Ink awaits at its top level (its
// layout engine), so neither it nor React can be required: they load from node_modules.
await build({
  entryPoints: [join(root, "dist", "cli", "tui", "session.js")],
  outfile: join(root, "dist", "tui.mjs"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["ink", "react", "marked"],
  logLevel: "warning",
});

// The viewer page's script (`spell view`, `spell loom view --out`): built for the browser.
await bundleViewer(join(dist, "viewer.js"));

// The manifest lists the commands for help without loading them; training must see it.
for (const script of ["manifest.mjs", "start-pages.mjs"]) {
  const r = spawnSync(process.execPath, [join(root, "scripts", script)], { stdio: "inherit" });
  if (r.status !== 0) throw new Error(`scripts/${script} failed`);
}

// Training: each run compiles the code its command needs and saves the cache of the bundle it
// loaded at exit; the next run starts from that cache and adds to it. Conversation spells
// suffice: a code sandbox runs in a worker thread (dist/sandbox-worker.mjs), which no cache
// covers. oclif's runs have the start-up path off (its help is printed from dist/start-pages.json).
// The grimoire's cantrip is plain YAML, which the `yaml` library does not read
// (src/spell/plain-yaml.ts); scripts/train-library.yaml is not, so the library's parse is in
// both caches as well.
const spell = ["run", "grimoire/04-cantrip.yaml", "--loom", "memory"];
const library = ["run", "scripts/train-library.yaml", "--loom", "memory", "--quiet"];
const runs = [
  [["--help"], "0"],
  [["run", "--help"], "0"],
  [["validate", "grimoire/04-cantrip.yaml"], "0"],
  [[...spell, "--quiet"], "0"],
  [library, "0"],
  [library, "1"],
  [[...spell, "--quiet"], "1"],
  [[...spell, "--json"], "1"],
];
for (const [args, fast] of runs) {
  const r = spawnSync(process.execPath, [join(root, "bin", "run.js"), ...args], {
    cwd: root,
    env: { ...plainEnv(), SPELLBOOK_TRAIN_CODE_CACHE: "1", SPELLBOOK_FAST_START: fast },
    encoding: "utf8",
  });
  if (r.status !== 0) {
    throw new Error(`training run \`spell ${args.join(" ")}\` exited ${r.status}:\n${r.stderr}`);
  }
}

// The caches the runs left must be the ones a user's `spell` accepts.
for (const bundle of Object.keys(BUNDLES)) {
  const check = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { loadBundle } = await import("./bin/load.js"); process.stdout.write(String(loadBundle({ bundle: "${bundle}" }).cacheRejected));`,
    ],
    { cwd: root, encoding: "utf8" },
  );
  if (check.stdout !== "false") {
    throw new Error(
      `the trained code cache of ${bundle} is not accepted:\n${check.stdout}${check.stderr}`,
    );
  }
}
