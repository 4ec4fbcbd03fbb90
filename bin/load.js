// Loads the bundled CLI (dist/spell.cjs) the way Node loads a CommonJS file, but compiled from
// the V8 code cache that `npm run build` leaves beside it: a start-up without parsing and
// compiling ~1 MB of JavaScript. When the cache does not fit this Node (another version, other
// V8 flags), V8 rejects it and compiles as usual — slower, never wrong.
//
// V8 checks only the source's length and its own version and flags, and a damaged cache can
// crash it: the cache file therefore starts with the SHA-256 of the bundle it was made from and
// of the data that follows, and is used only when both match.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath, URL } from "node:url";
import vm from "node:vm";

const linkedPath = fileURLToPath(new URL("../dist/spell.cjs", import.meta.url));
const HASH_BYTES = 32;

const sha256 = (bytes) => createHash("sha256").update(bytes).digest();

/** The cache's V8 data when it was made from exactly this bundle and arrived whole. */
function verifiedCache(cachePath, bundle) {
  let file;
  try {
    file = readFileSync(cachePath);
  } catch {
    return undefined; // not built yet, or removed: compile from source
  }
  if (file.length <= 2 * HASH_BYTES) return undefined;
  const data = file.subarray(2 * HASH_BYTES);
  const madeFrom = file.subarray(0, HASH_BYTES);
  const dataHash = file.subarray(HASH_BYTES, 2 * HASH_BYTES);
  if (!madeFrom.equals(sha256(bundle)) || !dataHash.equals(sha256(data))) return undefined;
  return data;
}

/**
 * @param {{ writeCache?: boolean }} [options] writeCache: at exit, save what this process
 *   compiled as the new cache (the build's training runs do this; a user's run never does).
 * @returns {{ exports: any, cacheRejected: boolean }}
 */
export function loadBundle(options = {}) {
  if (!existsSync(linkedPath)) {
    process.stderr.write(
      "spell: the CLI is not built in this checkout (dist/spell.cjs is missing): run `npm run build`\n",
    );
    process.exit(1);
  }
  const bundlePath = realpathSync(linkedPath);
  const cachePath = `${bundlePath}.v8cache`;
  const bundle = readFileSync(bundlePath);
  const cachedData = verifiedCache(cachePath, bundle);
  const script = new vm.Script(Module.wrap(bundle.toString("utf8")), {
    filename: bundlePath,
    cachedData,
  });
  const module = new Module(bundlePath);
  module.filename = bundlePath;
  // oclif requires the command target (this same file): it must find this instance, not load a
  // second copy — under its real path and, with --preserve-symlinks, under the linked one.
  Module._cache[bundlePath] = module;
  Module._cache[linkedPath] = module;
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
    process.once("exit", () => {
      const data = script.createCachedData();
      writeFileSync(cachePath, Buffer.concat([sha256(bundle), sha256(data), data]));
    });
  }
  return {
    exports: module.exports,
    cacheRejected: cachedData === undefined || script.cachedDataRejected === true,
  };
}
