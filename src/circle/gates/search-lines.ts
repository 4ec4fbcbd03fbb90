import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";

/** Longer patterns are refused: compiling one costs time on the main thread. */
export const MAX_PATTERN_CHARS = 1000;
const MAX_LINE_CHARS = 300;

/** The error for a pattern RE2 cannot take, saying why. */
function patternError(pattern: string, why: string): Error {
  const perl = /\\[1-9]|\\k<|\(\?[=!]|\(\?<[=!]/.test(pattern)
    ? "backreferences and lookaround are not supported (RE2 syntax)"
    : "RE2 syntax";
  return new Error(
    `bad regular expression: ${why}; ${perl} (set literal: true to search the text as written)`,
  );
}

export interface LineHits {
  binary?: undefined;
  /** Up to `limit` matching lines: [line number, text cut at 300 characters]. */
  hits: [number, string][];
  /** Every matching line, shown or not. */
  count: number;
}

// The worker reads each file and matches it line by line with RE2: a long line or a costly
// pattern never holds up the host's event loop, nor does a file's text (the host never decodes
// nor copies it: issue 40, a search's worst case stalled the loop 171 ms on a busy machine), and
// terminating the worker stops a search at once. A file is named by the host's handle on it
// (/proc/self/fd/N, opened by the host inside the root), so the worker reads the file the host
// judged, and nothing else.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const { RE2JS } = require(workerData.re2js);
let re;
try {
  re = RE2JS.compile(workerData.literal ? RE2JS.quote(workerData.pattern) : workerData.pattern);
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ error: String(err.message) });
}
parentPort.on("message", ({ path, limit }) => {
  let buf;
  try {
    buf = readFileSync(path);
  } catch (err) {
    parentPort.postMessage({ unread: String(err.message) });
    return;
  }
  if (buf.includes(0)) {
    parentPort.postMessage({ binary: true });
    return;
  }
  const lines = buf.toString("utf8").split("\\n");
  const hits = [];
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!re.test(lines[i])) continue;
    count++;
    const line = lines[i];
    if (hits.length < limit) hits.push([i + 1, line.length > ${MAX_LINE_CHARS} ? line.slice(0, ${MAX_LINE_CHARS}) + "…" : line]);
  }
  parentPort.postMessage({ hits, count });
});
`;

/**
 * Where re2js is, found on the first search (once per process), not when the module loads:
 * resolving it loads Node's package-exports resolver, ~5 ms of every `spell` start-up that
 * never searches (bench/loop.bench.mjs).
 */
let re2jsPath: string | undefined;
const re2js = (): string => (re2jsPath ??= createRequire(import.meta.url).resolve("re2js"));

/**
 * A worker thread that compiles one pattern (RE2 syntax: linear-time matching, no backtracking)
 * and matches it against texts, one at a time. Compiling happens there too: a large pattern
 * costs the worker time, never the host's event loop.
 */
export class LineMatcher {
  private worker: Worker | undefined;
  private ready: Promise<boolean> | undefined;

  constructor(
    private readonly pattern: string,
    private readonly literal: boolean,
  ) {
    if (pattern.length > MAX_PATTERN_CHARS)
      throw new Error(
        `pattern is ${pattern.length} characters; search takes at most ${MAX_PATTERN_CHARS}`,
      );
  }

  /**
   * The matching lines of the file at `path` (a handle's /proc/self/fd/N), read by the worker;
   * `binary` when it holds a NUL byte. Resolves `undefined` when `stop` fires first; rejects
   * when the worker cannot read it.
   */
  async matchFile(
    path: string,
    limit: number,
    stop: AbortSignal,
  ): Promise<LineHits | { binary: true } | undefined> {
    if (!(await this.start(stop))) return undefined;
    this.worker?.postMessage({ path, limit });
    const m = (await this.reply(stop)) as
      LineHits | { binary: true } | { unread: string } | undefined;
    if (m && "unread" in m) throw new Error(m.unread);
    return m;
  }

  /**
   * Starts the worker and compiles the pattern: true once it is ready, false when `stop` fired
   * first. Rejects when RE2 cannot take the pattern, saying why.
   */
  start(stop: AbortSignal): Promise<boolean> {
    if (!this.ready) {
      // worker_threads is loaded on the first search, not when a spell is loaded (start-up).
      const nextTurn = <T>(value: T) =>
        new Promise<T>((resolve) => setImmediate(() => resolve(value)));
      this.ready = import("node:worker_threads")
        // Loading Node's worker modules, finding re2js and starting a worker are each some
        // milliseconds of the host's thread on a first search: a turn of the event loop between.
        .then(({ Worker }) => nextTurn(Worker))
        .then((Worker) => nextTurn({ Worker, path: re2js() }))
        .then(({ Worker, path }) => {
          this.worker = new Worker(WORKER, {
            eval: true,
            workerData: { re2js: path, pattern: this.pattern, literal: this.literal },
            resourceLimits: { maxOldGenerationSizeMb: 256 },
          });
          return this.reply(stop);
        })
        .then((m) => {
          const { error } = (m ?? {}) as { error?: string };
          if (error !== undefined) throw patternError(this.pattern, error);
          return m !== undefined;
        });
    }
    return this.ready;
  }

  /** The worker's next message, or undefined once `stop` fires (the worker is ended then). */
  private reply(stop: AbortSignal): Promise<unknown> {
    const worker = this.worker;
    if (!worker || stop.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const done = () => {
        stop.removeEventListener("abort", onStop);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      };
      const onMessage = (m: unknown) => (done(), resolve(m));
      const onError = (err: Error) => (done(), this.end(), reject(err));
      const onExit = () => (done(), (this.worker = undefined), reject(new Error("search stopped")));
      const onStop = () => (done(), this.end(), resolve(undefined));
      stop.addEventListener("abort", onStop, { once: true });
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    });
  }

  /** Ends the worker (if one runs). */
  end(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}
