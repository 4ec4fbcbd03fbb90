import { buildSync } from "esbuild";
import { defineConfig } from "vitest/config";

// The code medium's sandboxes (src/sandbox/) run in worker threads, whose script is a bundle of its own
// (scripts/bundle.mjs makes dist/sandbox-worker.mjs). The tests run src/, so they get a bundle
// of the worker made from src/ now, beside node_modules (QuickJS loads from there).
const sandboxWorker = "node_modules/.cache/spellbook/sandbox-worker.mjs";
buildSync({
  entryPoints: ["src/sandbox/worker-main.ts"],
  outfile: sandboxWorker,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["quickjs-emscripten", "@jitl/*"],
  logLevel: "warning",
});

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Bounds for a hang, never a speed check: the suite must pass on 2 cores at a load of 25-30
    // (`stress --cpu 8` beside it, and more). A test that waits longer says so itself.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // After vitest's own summary: how many tests skipped, and why (tests/support/needs.ts).
    reporters: ["default", "./tests/support/skip-reporter.ts"],
    env: { SPELLBOOK_SANDBOX_WORKER: `${process.cwd()}/${sandboxWorker}` },
  },
});
