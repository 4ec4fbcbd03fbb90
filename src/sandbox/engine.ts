import type * as FsPromises from "node:fs/promises";
import { createRequire } from "node:module";
import { SystemError } from "../core/errors.js";
import { Lane } from "./lane.js";
import { lazyBuiltin } from "../core/builtin.js";

const fsPromises = lazyBuiltin<typeof FsPromises>("node:fs/promises");

export interface CodeEngineOptions {
  /** "release" (default), or "debug": QuickJS built with assertions, for tests. */
  build?: "release" | "debug";
  /** Lanes (worker threads) created before sandboxes start sharing them. Default 16. */
  maxLanes?: number;
}

/** Node has WebAssembly; the TypeScript lib we compile against does not declare it. */
const Wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }
).WebAssembly;

const WASM = {
  release: "@jitl/quickjs-wasmfile-release-sync/wasm",
  debug: "@jitl/quickjs-wasmfile-debug-asyncify/wasm",
} as const;

/** Set in the CLI bundle (scripts/bundle.mjs): its `url` is the bundle's own URL. */
declare const __bundleMeta: { readonly url: string } | undefined;

/**
 * The worker's script: bundled on its own beside the CLI bundle and the library's modules
 * (scripts/bundle.mjs). SPELLBOOK_SANDBOX_WORKER names another (the tests build one from src/).
 */
export function workerFile(): URL | string {
  const named = process.env["SPELLBOOK_SANDBOX_WORKER"];
  if (named) return named;
  if (typeof __bundleMeta === "object") return new URL("./sandbox-worker.mjs", __bundleMeta.url);
  return new URL("../sandbox-worker.mjs", import.meta.url);
}

/**
 * The process-wide QuickJS engine: the WASM is read and compiled once; lanes (worker threads,
 * each with its own instance of it) are created on demand so that sandboxes which run at the
 * same time never share one. The main thread never runs sandbox code (LIMITS.md).
 */
export class CodeEngine {
  private readonly lanes: Lane[] = [];
  private pending = 0;
  private nextId = 0;

  private constructor(
    private readonly compiled: object,
    private readonly build: "release" | "debug",
    private counterOffset: number | undefined,
    private readonly maxLanes: number,
  ) {}

  static async create(options: CodeEngineOptions = {}): Promise<CodeEngine> {
    const build = options.build ?? "release";
    const compiling = compile(build);
    // The first lane's worker boots meanwhile; it finds where QuickJS keeps its interrupt
    // counter (interrupt-pace.ts) for the lanes after it.
    const first = Lane.start(workerFile(), { build, counterOffset: undefined }, compiling);
    first.catch(() => undefined);
    const engine = new CodeEngine(await compiling, build, undefined, options.maxLanes ?? 16);
    engine.adopt(await first.catch(workerFailed));
    return engine;
  }

  /**
   * A lane for a new sandbox: an empty idle lane, else a new lane while under the cap, else the
   * least loaded idle lane. A lane held by a running evaluation is never chosen — that
   * evaluation may be the caller's ancestor, waiting for this very sandbox (a deadlock).
   */
  async acquire(): Promise<Lane> {
    let best: Lane | undefined;
    let alive = 0;
    for (const lane of this.lanes) {
      if (lane.dead || lane.retiring) continue;
      alive++;
      if (!lane.busy && (!best || lane.live < best.live)) best = lane;
    }
    if (best && (best.live === 0 || alive + this.pending >= this.maxLanes)) {
      best.live++;
      return best;
    }
    this.pending++;
    try {
      const data = { build: this.build, counterOffset: this.counterOffset };
      const lane = this.adopt(
        await Lane.start(workerFile(), data, this.compiled).catch(workerFailed),
      );
      lane.live++;
      return lane;
    } finally {
      this.pending--;
    }
  }

  private adopt(started: { lane: Lane; counterOffset: number | undefined }): Lane {
    this.counterOffset ??= started.counterOffset;
    started.lane.id = this.nextId++;
    this.lanes.push(started.lane);
    return started.lane;
  }

  release(lane: Lane): void {
    lane.live = Math.max(0, lane.live - 1);
    if ((lane.dead || lane.retiring) && lane.live === 0) {
      // The whole worker goes: its heap, leaks and all.
      const i = this.lanes.indexOf(lane);
      if (i >= 0) this.lanes.splice(i, 1);
      if (!lane.dead) lane.kill(new Error("the lane was retired"));
    }
  }

  /** The lanes, for diagnostics and tests. */
  get laneList(): readonly Lane[] {
    return this.lanes;
  }

  /** For tests and benchmarks: lanes alive, and sandboxes alive in them. */
  stats(): { lanes: number; live: number; dead: number; retiring: number } {
    const alive = this.lanes.filter((l) => !l.dead && !l.retiring);
    return {
      lanes: alive.length,
      live: this.lanes.reduce((n, l) => n + l.live, 0),
      dead: this.lanes.filter((l) => l.dead).length,
      retiring: this.lanes.filter((l) => l.retiring && !l.dead).length,
    };
  }
}

/** The QuickJS WebAssembly, compiled once per process (a lane instantiates it). */
async function compile(build: "release" | "debug"): Promise<object> {
  const require = createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten"));
  try {
    return await Wasm.compile(await fsPromises().readFile(require.resolve(WASM[build])));
  } catch (err) {
    throw new SystemError(
      "quickjs_unavailable",
      `cannot load the QuickJS WebAssembly module: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

function workerFailed(err: unknown): never {
  throw new SystemError(
    "sandbox_worker_failed",
    `cannot start a sandbox worker: ${(err as Error).message}`,
    { cause: err },
  );
}

let options: CodeEngineOptions = {};
let loading: Promise<CodeEngine> | undefined;

/** The engine, loaded once per process (the first call pays the WASM compile and a worker). */
export function loadCodeEngine(): Promise<CodeEngine> {
  loading ??= CodeEngine.create(options).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** Chooses the build before the engine loads (tests use the debug build's assertions). */
export function configureCodeEngine(next: CodeEngineOptions): void {
  if (loading)
    throw new SystemError(
      "quickjs_loaded",
      "the code engine is already loaded; configure it before the first code-medium entity",
    );
  options = { ...next };
}
