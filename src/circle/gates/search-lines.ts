import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { RE2JS } from "re2js";

/** Longer patterns are refused: compiling one costs time on the main thread. */
export const MAX_PATTERN_CHARS = 1000;
const MAX_LINE_CHARS = 300;

/**
 * Compiles a pattern in RE2 syntax (linear-time matching, no backtracking); a pattern RE2 cannot
 * take is an error that says why.
 */
export function compilePattern(pattern: string, literal: boolean): string {
  if (pattern.length > MAX_PATTERN_CHARS)
    throw new Error(
      `pattern is ${pattern.length} characters; search takes at most ${MAX_PATTERN_CHARS}`,
    );
  const source = literal ? RE2JS.quote(pattern) : pattern;
  try {
    RE2JS.compile(source);
  } catch (err) {
    const why = (err as Error).message;
    const perl = /\\[1-9]|\\k<|\(\?[=!]|\(\?<[=!]/.test(pattern)
      ? "backreferences and lookaround are not supported (RE2 syntax)"
      : "RE2 syntax";
    throw new Error(
      `bad regular expression: ${why}; ${perl} (set literal: true to search the text as written)`,
    );
  }
  return source;
}

export interface LineHits {
  /** Up to `limit` matching lines: [line number, text cut at 300 characters]. */
  hits: [number, string][];
  /** Every matching line, shown or not. */
  count: number;
}

// The worker matches line by line with RE2: a long line or a costly pattern never holds up the
// host's event loop, and terminating the worker stops a search at once.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { RE2JS } = require(workerData.re2js);
const re = RE2JS.compile(workerData.source);
parentPort.on("message", ({ text, limit }) => {
  const lines = text.split("\\n");
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

let re2jsPath: string | undefined;

/** A worker thread that matches one compiled pattern against texts, one at a time. */
export class LineMatcher {
  private worker: Worker | undefined;

  constructor(private readonly source: string) {}

  /**
   * The matching lines of `text`; resolves `undefined` when `stop` fires first (the worker is
   * ended then, mid-line if need be).
   */
  match(text: string, limit: number, stop: AbortSignal): Promise<LineHits | undefined> {
    if (stop.aborted) return Promise.resolve(undefined);
    re2jsPath ??= createRequire(import.meta.url).resolve("re2js");
    const worker = (this.worker ??= new Worker(WORKER, {
      eval: true,
      workerData: { re2js: re2jsPath, source: this.source },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    }));
    return new Promise((resolve, reject) => {
      const done = () => {
        stop.removeEventListener("abort", onStop);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      };
      const onMessage = (m: LineHits) => (done(), resolve(m));
      const onError = (err: Error) => (done(), this.end(), reject(err));
      const onExit = () => (done(), (this.worker = undefined), reject(new Error("search stopped")));
      const onStop = () => (done(), this.end(), resolve(undefined));
      stop.addEventListener("abort", onStop, { once: true });
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      worker.postMessage({ text, limit });
    });
  }

  /** Ends the worker (if one runs). */
  end(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}
