/**
 * Loads the terminal UI (src/cli/tui/, issue 42) when a session opens it, never before: Ink and
 * React take hundreds of milliseconds to load, which `spell --help` and `spell run` must not pay.
 *
 * Ink is an ES module whose layout engine awaits at its top level, so it cannot be required; the
 * CLI bundles are CommonJS run in a vm.Script (bin/load.js), where import() is unavailable. In a
 * bundle the UI is therefore its own ES module bundle (dist/tui.mjs, scripts/bundle.mjs), imported
 * through a CommonJS file of bin/ (bin/import-esm.js), whose import() Node runs as usual.
 */
import { createRequire } from "node:module";
import type * as Tui from "./tui/session.js";

/** Set in the CLI bundle (scripts/bundle.mjs): its `url` is the bundle's own URL. */
declare const __bundleMeta: { readonly url: string } | undefined;

export type TuiModule = typeof Tui;

export async function loadTui(): Promise<TuiModule> {
  if (typeof __bundleMeta === "object") {
    const require = createRequire(__bundleMeta.url);
    const importEsm = require("../bin/import-esm.js") as (url: string) => Promise<TuiModule>;
    return importEsm(new URL("./tui.mjs", __bundleMeta.url).href);
  }
  // Not bundled (dist/cli/, or the sources under the tests): an ordinary import. A name the
  // bundler does not follow, so the CLI bundle does not take Ink in.
  const path = "./tui/session.js";
  return (await import(path)) as TuiModule;
}
