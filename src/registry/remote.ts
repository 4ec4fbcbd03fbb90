/**
 * A spell by registry reference, made a folder on disk: fetched once per manifest digest into
 * the cache (`$SPELLBOOK_CACHE`, else `~/.cache/spellbook`), every blob checked against its
 * digest, its paths checked (none leaves its folder), then used from there. With a lock, the
 * reference is fetched by its pinned digest — from the cache without the network when it is
 * there — and a reference the lock does not hold is refused.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { ConfigError, SystemError } from "../core/errors.js";
import {
  layerPaths,
  readConfig,
  readManifest,
  type Manifest,
  type SpellConfig,
} from "./artifact.js";
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
  /** Its files (the layers' paths, checked), relative to `dir`. */
  files: string[];
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
  ownFolder(root);
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
  const config = readConfig(configBytes, where);
  if (typeof config.main !== "string" || !paths.includes(config.main))
    throw new ConfigError(
      "unsafe_path",
      `${where}: refused: its main file ${JSON.stringify(config.main)} is not one of its files`,
    );
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

/**
 * The cache's folder, made ours alone (0700): nobody else may plant or swap a copy in it. One
 * that is a symbolic link, or another user's, is refused (a shared cache is not a cache).
 */
function ownFolder(root: string): void {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const st = lstatSync(root);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid))
    throw new SystemError(
      "registry_cache",
      `the cache folder ${root} is ${st.isSymbolicLink() ? "a symbolic link" : st.isDirectory() ? "another user's" : "not a folder"}: set SPELLBOOK_CACHE to a folder of your own`,
    );
  if ((st.mode & 0o077) !== 0) chmodSync(root, 0o700);
}

/** Whether `path` is a real folder (or, with `file`, a regular file), not a link to one. */
function real(path: string, file = false): boolean {
  try {
    const st = lstatSync(path);
    return file ? st.isFile() : st.isDirectory();
  } catch {
    return false;
  }
}

/** The cached copy of a digest, when it is complete and its manifest still has that digest. */
function fromCache(ref: Reference, digest: string, root: string): Fetched | undefined {
  const dir = join(root, digest.slice("sha256:".length));
  const files = join(dir, "files");
  if (!existsSync(dir)) return undefined;
  const drop = () => {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  };
  // A link anywhere in a copy (planted, or raced in) drops it: its files are read where they are.
  if (!real(dir) || !real(files) || !real(join(dir, "manifest.json"), true)) return drop();
  let bytes: Buffer;
  let configBytes: Buffer;
  try {
    bytes = readFileSync(join(dir, "manifest.json"));
    configBytes = readFileSync(join(dir, "config.json"));
  } catch {
    return drop();
  }
  if (sha256(bytes) !== digest) return drop();
  const where = formatReference(ref);
  const manifest = readManifest(bytes, where);
  const paths = layerPaths(manifest, where);
  if (sha256(configBytes) !== manifest.config.digest) return drop();
  const config = readConfig(configBytes, where);
  if (typeof config.main !== "string" || !paths.includes(config.main)) return drop();
  // A copy changed since it was fetched is dropped and fetched again, never used.
  const intact = manifest.layers.every((layer, i) => {
    const segments = paths[i]!.split("/");
    for (let n = 1; n < segments.length; n++)
      if (!real(join(files, ...segments.slice(0, n)))) return false;
    const path = under(files, paths[i]!);
    try {
      return real(path, true) && sha256(readFileSync(path)) === layer.digest;
    } catch {
      return false;
    }
  });
  if (!intact) return drop();
  return {
    ref,
    digest,
    dir: files,
    main: under(files, config.main),
    files: paths,
    manifest,
    config,
  };
}
