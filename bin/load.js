// Loads a bundle of the CLI (dist/spell.cjs, or dist/run.cjs for `spell run`) the way Node loads
// a CommonJS file, but compiled from the V8 code cache that `npm run build` leaves beside it: a
// start-up without parsing and compiling ~1 MB of JavaScript. When the cache does not fit this
// Node (another version, other V8 flags), V8 rejects it and compiles as usual — slower, never
// wrong. (CommonJS, as all of bin/ — see bin/package.json.)
//
// V8 checks only the source's length and its own version and flags, and a damaged cache can
// crash it: the cache file therefore starts with the CRC-32 of the bundle it was made from and of
// the data that follows, and is used only when both match. (CRC-32, from zlib: node:crypto alone
// takes longer to load than the whole check saves; this guards against accidents, not attacks —
// whoever can write dist/ can write the bundle itself.)
"use strict";
const { isAscii } = require("node:buffer");
const { existsSync, readFileSync, realpathSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { dirname, join } = require("node:path");
const vm = require("node:vm");

const SUM_BYTES = 4;

/**
 * zlib's CRC-32 (zlib.crc32 arrived in Node 20.15; without it no cache is trusted). node:zlib's
 * JavaScript loads the stream classes (~8 M instructions, a twentieth of a `spell run`), so the
 * same C++ function is called through process.binding("zlib"), with the arguments zlib.crc32
 * gives it. process.binding is deprecated (DEP0111): Node warns only under
 * --pending-deprecation, by wrapping it (its name is then no longer "binding"); there, or where
 * the binding is missing, throws or has no crc32, node:zlib is loaded as before.
 */
function zlibCrc32() {
  const native = pendingDeprecation() ? undefined : bindingCrc32();
  if (native) return (bytes) => native(bytes, 0);
  const zlib = require("node:zlib");
  return typeof zlib.crc32 === "function" ? (bytes) => zlib.crc32(bytes) : undefined;
}

/** Whether Node was asked to warn of pending deprecations (then process.binding would warn). */
function pendingDeprecation() {
  const asked = (arg) => arg.includes("pending-deprecation");
  return (
    process.execArgv.some(asked) ||
    asked(process.env["NODE_OPTIONS"] ?? "") ||
    process.env["NODE_PENDING_DEPRECATION"] === "1"
  );
}

function bindingCrc32() {
  try {
    if (typeof process.binding !== "function" || process.binding.name !== "binding") return;
    const crc32 = process.binding("zlib")?.crc32;
    return typeof crc32 === "function" ? crc32 : undefined;
  } catch {
    return undefined;
  }
}

const crc32 = zlibCrc32();

/** The cache's V8 data when it was made from exactly this bundle and arrived whole. */
function verifiedCache(cachePath, bundle) {
  let file;
  try {
    file = readFileSync(cachePath);
  } catch {
    return undefined; // not built yet, or removed: compile from source
  }
  if (!crc32 || file.length <= 2 * SUM_BYTES) return undefined;
  const data = file.subarray(2 * SUM_BYTES);
  if (file.readUInt32LE(0) !== crc32(bundle) || file.readUInt32LE(SUM_BYTES) !== crc32(data))
    return undefined;
  return data;
}

/**
 * @param {{ bundle?: string, writeCache?: boolean }} [options] bundle: the file in dist/
 *   (default spell.cjs, the whole CLI); writeCache: at exit, save what this process compiled as
 *   the new cache (the build's training runs do this; a user's run never does).
 * @returns {{ exports: any, cacheRejected: boolean }}
 */
function loadBundle(options = {}) {
  const name = options.bundle ?? "spell.cjs";
  const linkedPath = join(__dirname, "..", "dist", name);
  if (!existsSync(linkedPath)) {
    process.stderr.write(
      `spell: the CLI is not built in this checkout (dist/${name} is missing): run \`npm run build\`\n`,
    );
    process.exit(1);
  }
  const bundlePath = realpathSync(linkedPath);
  const cachePath = `${bundlePath}.v8cache`;
  const bundle = readFileSync(bundlePath);
  const cachedData = verifiedCache(cachePath, bundle);
  // The build makes the bundles ASCII (scripts/bundle.mjs), which decodes faster as Latin-1.
  const source = bundle.toString(isAscii(bundle) ? "latin1" : "utf8");
  const script = new vm.Script(Module.wrap(source), {
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
    Module.createRequire(bundlePath),
    module,
    bundlePath,
    dirname(bundlePath),
  );
  module.loaded = true;
  if (options.writeCache) {
    process.once("exit", () => {
      if (!crc32) return; // a cache nobody could check is not written
      const data = script.createCachedData();
      const sums = Buffer.alloc(2 * SUM_BYTES);
      sums.writeUInt32LE(crc32(bundle), 0);
      sums.writeUInt32LE(crc32(data), SUM_BYTES);
      writeFileSync(cachePath, Buffer.concat([sums, data]));
    });
  }
  return {
    exports: module.exports,
    cacheRejected: cachedData === undefined || script.cachedDataRejected === true,
  };
}

module.exports = { loadBundle };
