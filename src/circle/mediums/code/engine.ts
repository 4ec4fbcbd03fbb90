import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import type * as QuickJSPackage from "quickjs-emscripten";
import type { QuickJSAsyncVariant, QuickJSAsyncWASMModule } from "quickjs-emscripten";
import { SystemError } from "../../../core/errors.js";
import { Lane } from "./lane.js";
import type { Shell } from "./shell.js";

export interface CodeEngineOptions {
  /** "release" (default), or "debug": QuickJS built with assertions, for tests. */
  build?: "release" | "debug";
  /** Lanes (module instances) created before sandboxes start sharing them. Default 16. */
  maxLanes?: number;
  /**
   * Keep WebAssembly on V8's baseline compiler (default true). Optimized, V8 gives the asyncified
   * interpreter loop a frame of ~80 KiB: after a few thousand gate calls a recursion 30 deep
   * overflows Node's stack. Baseline code keeps frames small and, measured, runs the sandbox
   * faster too. The flag is process-wide: it applies to WebAssembly compiled after the engine loads.
   */
  liftoffOnly?: boolean;
}

/** Node has WebAssembly; the TypeScript lib we compile against does not declare it. */
const Wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }
).WebAssembly;

const BUILDS = {
  release: { variant: "RELEASE_ASYNC", wasm: "@jitl/quickjs-wasmfile-release-asyncify/wasm" },
  debug: { variant: "DEBUG_ASYNC", wasm: "@jitl/quickjs-wasmfile-debug-asyncify/wasm" },
} as const;

/** quickjs-emscripten is imported on first use: a spell without a code circle never loads it. */
type QuickJS = typeof QuickJSPackage;

/**
 * The process-wide QuickJS engine: the WASM is read and compiled once; lanes (instances of it)
 * are created on demand so that sandboxes which run at the same time never share one.
 */
export class CodeEngine {
  private readonly lanes: Lane<Shell>[] = [];
  private pending = 0;
  private nextId = 0;

  private constructor(
    private readonly quickjs: QuickJS,
    private readonly variant: QuickJSAsyncVariant,
    private readonly asyncifyStackKey: string | undefined,
    private readonly maxLanes: number,
    first: Lane["module"],
  ) {
    this.lanes.push(new Lane<Shell>(this.nextId++, first, asyncifyStackKey));
  }

  static async create(options: CodeEngineOptions = {}): Promise<CodeEngine> {
    const build = BUILDS[options.build ?? "release"];
    if (options.liftoffOnly ?? true) setFlagsFromString("--liftoff-only");
    const require = createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten"));
    let compiled: object;
    try {
      compiled = await Wasm.compile(await readFile(require.resolve(build.wasm)));
    } catch (err) {
      throw new SystemError(
        "quickjs_unavailable",
        `cannot load the QuickJS WebAssembly module: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const quickjs = await import("quickjs-emscripten");
    const variant = quickjs.newVariant(quickjs[build.variant], { wasmModule: compiled });
    const first = await quickjs.newQuickJSAsyncWASMModuleFromVariant(variant);
    const key = findAsyncifyStackKey(first);
    return new CodeEngine(quickjs, variant, key, options.maxLanes ?? 16, first);
  }

  /**
   * A lane for a new sandbox: an empty idle lane, else a new lane while under the cap, else the
   * least loaded idle lane. A lane held by a running evaluation is never chosen — that
   * evaluation may be the caller's ancestor, waiting for this very sandbox (a deadlock).
   */
  async acquire(): Promise<Lane<Shell>> {
    let best: Lane<Shell> | undefined;
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
      const lane = new Lane<Shell>(
        this.nextId++,
        await this.quickjs.newQuickJSAsyncWASMModuleFromVariant(this.variant),
        this.asyncifyStackKey,
      );
      this.lanes.push(lane);
      lane.live++;
      return lane;
    } finally {
      this.pending--;
    }
  }

  release(lane: Lane<Shell>): void {
    lane.live = Math.max(0, lane.live - 1);
    if ((lane.dead || lane.retiring) && lane.live === 0) {
      // The whole module instance goes: V8 reclaims its memory, leaks and all.
      const i = this.lanes.indexOf(lane);
      if (i >= 0) this.lanes.splice(i, 1);
      lane.spare = undefined;
    }
  }

  /** The lanes, for diagnostics and tests. */
  get laneList(): readonly Lane<Shell>[] {
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

/** The asyncify buffer size lives under a minified name in release builds: find it by value. */
function findAsyncifyStackKey(module: QuickJSAsyncWASMModule): string | undefined {
  const probe = 123_457;
  const runtime = module.newRuntime();
  try {
    runtime.setMaxStackSize(probe);
    const asyncify =
      (module as unknown as { module?: { Asyncify?: Record<string, unknown> } }).module?.Asyncify ??
      {};
    return Object.keys(asyncify).find((k) => asyncify[k] === probe);
  } finally {
    runtime.dispose();
  }
}

let options: CodeEngineOptions = {};
let loading: Promise<CodeEngine> | undefined;

/** The engine, loaded once per process (the first call pays the WASM compile, ~50 ms). */
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
