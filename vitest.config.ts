import { availableParallelism } from "node:os";
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
    // Test files at once. vitest's own default for `run` is one fewer than the cores: 1 on 2
    // cores, so every file waited for the one before it, while much of the suite waits rather
    // than computes (a Redis gone for 60 s, locks expiring, servers and processes starting).
    // tests/cli, queue, security and loom (88 files) on 2 cores at a load of ~9 from other work:
    // 1 worker 12:03 wall, 2 workers 5:26, 3 workers 4:38; CPU time the same (~230-290 s).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    env: { SPELLBOOK_SANDBOX_WORKER: `${process.cwd()}/${sandboxWorker}` },
  },
});
