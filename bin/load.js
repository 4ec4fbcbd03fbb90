// Loads the bundled CLI (dist/spell.cjs) the way Node loads a CommonJS file, but compiled from
// the V8 code cache that `npm run build` leaves beside it: a start-up without parsing and
// compiling ~1 MB of JavaScript. When the cache does not fit this Node (another version, other
// V8 flags), V8 rejects it and compiles as usual — slower, never wrong.
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath, URL } from "node:url";
import vm from "node:vm";

export const bundlePath = realpathSync(
  fileURLToPath(new URL("../dist/spell.cjs", import.meta.url)),
);
export const cachePath = `${bundlePath}.v8cache`;

/**
 * @param {{ writeCache?: boolean }} [options] writeCache: at exit, save what this process
 *   compiled as the new cache (the build's training runs do this; a user's run never does).
 * @returns {{ exports: any, cacheRejected: boolean }}
 */
export function loadBundle(options = {}) {
  let cachedData;
  try {
    cachedData = readFileSync(cachePath);
  } catch {
    cachedData = undefined; // not built yet, or removed: compile from source
  }
  const script = new vm.Script(Module.wrap(readFileSync(bundlePath, "utf8")), {
    filename: bundlePath,
    cachedData,
  });
  const module = new Module(bundlePath);
  module.filename = bundlePath;
  // oclif requires the command target (this same file): it must find this instance, not load
  // a second copy of itself.
  Module._cache[bundlePath] = module;
  const wrapper = script.runInThisContext();
  wrapper.call(
    module.exports,
    module.exports,
    createRequire(bundlePath),
    module,
    bundlePath,
    dirname(bundlePath),
  );
  module.loaded = true;
  if (options.writeCache) {
    process.once("exit", () => writeFileSync(cachePath, script.createCachedData()));
  }
  return {
    exports: module.exports,
    cacheRejected: cachedData === undefined || script.cachedDataRejected === true,
  };
}
