/**
 * A spell by registry reference, made a folder on disk: fetched once per manifest digest into
 * the cache (`$SPELLBOOK_CACHE`, else `~/.cache/spellbook`), every blob checked against its
 * digest, its paths checked (none leaves its folder), then used from there. With a lock, the
 * reference is fetched by its pinned digest — from the cache without the network when it is
 * there — and a reference the lock does not hold is refused.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { layerPaths, readManifest, type Manifest, type SpellConfig } from "./artifact.js";
import { RegistryClient, sha256 } from "./client.js";
import { credentialFor } from "./credentials.js";
import { spellFiles, under } from "./files.js";
import type { Lock } from "./lock.js";
import { formatReference, manifestKey, parseReference, type Reference } from "./reference.js";

export interface RemoteOptions {
  env: NodeJS.ProcessEnv;
  /** Plain HTTP to a registry that is not on loopback (`--plain-http`). */
  plainHttp?: boolean | undefined;
  /** The references must be the lock's. */
  lock?: Lock | undefined;
  signal?: AbortSignal | undefined;
}

export interface Fetched {
  ref: Reference;
  digest: string;
  /** The folder of the spell's files. */
  dir: string;
  /** The main spell file, absolute. */
  main: string;
  manifest: Manifest;
  config: SpellConfig;
}

/** The cache's root folder. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  return (
    env["SPELLBOOK_CACHE"] ||
    join(env["XDG_CACHE_HOME"] || join(env["HOME"] || homedir(), ".cache"), "spellbook")
  );
}

/** A client for the reference's host, with its stored credential. */
export function clientFor(ref: Reference, options: RemoteOptions): RegistryClient {
  return new RegistryClient({
    host: ref.host,
    credential: credentialFor(ref.host, options.env),
    plainHttp: options.plainHttp === true,
    signal: options.signal,
  });
}

/** The digest a reference must have under the lock; undefined without one. */
export function pinned(text: string, ref: Reference, lock: Lock | undefined): string | undefined {
  if (!lock) return ref.digest;
  const locked = Object.hasOwn(lock.remote, text) ? lock.remote[text] : undefined;
  if (locked === undefined)
    throw new ConfigError(
      "lock_mismatch",
      `${text} is not in ${lock.file}: the lock pins what a run may fetch (run spell lock --update)`,
    );
  if (ref.digest !== undefined && ref.digest !== locked)
    throw new ConfigError(
      "lock_mismatch",
      `${text} names ${ref.digest} but ${lock.file} pins ${locked} (run spell lock --update)`,
    );
  return locked;
}

/** Fetches (or finds in the cache) the spell a reference names. */
export async function fetchSpell(text: string, options: RemoteOptions): Promise<Fetched> {
  const ref = parseReference(text);
  const digest = pinned(text, ref, options.lock);
  const root = join(cacheRoot(options.env), "oci", "sha256");
  if (digest !== undefined) {
    const hit = fromCache(ref, digest, root);
    if (hit) return hit;
  }
  const client = clientFor(ref, options);
  const where = formatReference(ref);
  const got = await client.getManifest(ref.repository, digest ?? manifestKey(ref));
  const hit = fromCache(ref, got.digest, root);
  if (hit) return hit;
  const manifest = readManifest(got.bytes, where);
  const paths = layerPaths(manifest, where);
  const configBytes = await client.getBlob(
    ref.repository,
    manifest.config.digest,
    manifest.config.size,
  );
  const config = JSON.parse(configBytes.toString("utf8")) as SpellConfig;
  if (typeof config.main !== "string" || !paths.includes(config.main))
    throw new ConfigError(
      "unsafe_path",
      `${where}: refused: its main file ${JSON.stringify(config.main)} is not one of its files`,
    );
  mkdirSync(root, { recursive: true });
  const tmp = join(root, `.tmp-${randomBytes(6).toString("hex")}`);
  try {
    const files = join(tmp, "files");
    for (const [i, layer] of manifest.layers.entries()) {
      const bytes = await client.getBlob(ref.repository, layer.digest, layer.size);
      const path = under(files, paths[i]!);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes, { flag: "wx" });
    }
    refuseEscapes(join(files, ...config.main.split("/")), files, where);
    writeFileSync(join(tmp, "config.json"), configBytes);
    writeFileSync(join(tmp, "manifest.json"), got.bytes);
    const final = join(root, got.digest.slice("sha256:".length));
    try {
      renameSync(tmp, final);
    } catch (err) {
      // Another process cached the same digest first: its copy is the same bytes.
      if (!existsSync(join(final, "manifest.json"))) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const cached = fromCache(ref, got.digest, root);
  if (!cached) throw new Error(`the cache lost ${got.digest}`);
  return cached;
}

/** Refuses a pulled spell whose paths (child spells, $file, roots, scripts) leave its folder. */
export function refuseEscapes(main: string, dir: string, where: string): void {
  const found = spellFiles(main, dir);
  const bad = found.problems.filter((p) => p.why !== "names no file");
  if (bad.length > 0)
    throw new ConfigError(
      "unsafe_path",
      `${where}: refused: its paths leave its folder:\n${bad.map((p) => `  ${p.from}:${p.line}:${p.col}: ${JSON.stringify(p.text)} ${p.why}`).join("\n")}`,
    );
}

/** The cached copy of a digest, when it is complete and its manifest still has that digest. */
function fromCache(ref: Reference, digest: string, root: string): Fetched | undefined {
  const dir = join(root, digest.slice("sha256:".length));
  let bytes: Buffer;
  let config: SpellConfig;
  try {
    bytes = readFileSync(join(dir, "manifest.json"));
    config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as SpellConfig;
  } catch {
    return undefined;
  }
  const manifest = readManifest(bytes, formatReference(ref));
  const files = join(dir, "files");
  const paths = layerPaths(manifest, formatReference(ref));
  // A copy changed since it was fetched is dropped and fetched again, never used.
  const intact =
    sha256(bytes) === digest &&
    manifest.layers.every((layer, i) => {
      try {
        return sha256(readFileSync(under(files, paths[i]!))) === layer.digest;
      } catch {
        return false;
      }
    });
  if (!intact) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return { ref, digest, dir: files, main: under(files, config.main), manifest, config };
}
