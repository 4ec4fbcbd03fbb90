/**
 * A spell as an OCI artifact (docs/design/REGISTRY.md): an image manifest whose `artifactType`
 * and config are Spellbook's own media types, one layer per file (its path in the
 * `org.opencontainers.image.title` annotation, as ORAS writes files), and annotations naming
 * the spell, its version (the tag pushed), description, inputs and output schema, its main file
 * and the Spellbook version it needs. Packing is deterministic: the same files give the same
 * digest. Unpacking refuses a path that is absolute, climbs with `..`, or is written twice, and
 * writes regular files only.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { ConfigError, SystemError } from "../core/errors.js";
import { MAX_BLOB, OCI_MANIFEST, sha256 } from "./client.js";
import { spellFiles, under } from "./files.js";

export const ARTIFACT_TYPE = "application/vnd.spellbook.spell.v1";
export const CONFIG_TYPE = "application/vnd.spellbook.spell.config.v1+json";
export const FILE_TYPE = "application/vnd.spellbook.spell.file.v1";
const TITLE = "org.opencontainers.image.title";
/** Bounds of what a pulled artifact may make the client fetch and write. */
export const LIMITS = {
  /** Files in one spell. */
  layers: 4096,
  /** All its files together. */
  total: 1024 * 1024 * 1024,
  /** Its config blob. */
  config: 1024 * 1024,
  /** A path's length, and one segment's (in UTF-8 bytes, as file systems count). */
  path: 1024,
  segment: 255,
} as const;

export const ANNOTATION = {
  name: "org.opencontainers.image.title",
  version: "org.opencontainers.image.version",
  description: "org.opencontainers.image.description",
  main: "dev.spellbook.main",
  kind: "dev.spellbook.kind",
  requires: "dev.spellbook.requires",
  inputs: "dev.spellbook.inputs",
  outputs: "dev.spellbook.output_schema",
} as const;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export interface Manifest {
  schemaVersion: 2;
  mediaType: string;
  artifactType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

/** The spell's config blob: what `spell inspect` shows besides the annotations. */
export interface SpellConfig {
  main: string;
  kind: string;
  name: string;
  description?: string;
  inputs?: unknown;
  output_schema?: unknown;
  requires: string;
  files: string[];
}

export interface Packed {
  manifest: Buffer;
  config: Buffer;
  blobs: { digest: string; bytes: Buffer }[];
}

/** This Spellbook's version (package.json beside dist/ or src/). */
export function spellbookVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "spellbook" && pkg.version) return pkg.version;
    } catch {
      // not here: one folder up
    }
  }
  return "0.0.0";
}

/** A file as the user can open it: relative to the working folder when under it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** Packs `main` and everything it names inside its folder; refuses what it cannot pack. */
export function pack(main: string, version: string | undefined): Packed {
  const root = dirname(main);
  const found = spellFiles(main, root);
  if (found.problems.length > 0)
    throw new ConfigError(
      "push_refused",
      `cannot pack ${shown(main)}:\n${found.problems.map((p) => `  ${shown(join(root, p.from))}:${p.line}:${p.col}: ${JSON.stringify(p.text)} ${p.why}`).join("\n")}`,
    );
  const files = found.files.map((rel) => ({ rel, bytes: readFileSync(under(root, rel)) }));
  const doc = (parse(files[0]!.bytes.toString("utf8")) ?? {}) as Record<string, unknown>;
  const config: SpellConfig = {
    main: found.files[0]!,
    kind: typeof doc["kind"] === "string" ? doc["kind"] : "cantrip",
    name: typeof doc["name"] === "string" ? doc["name"] : found.files[0]!,
    ...(typeof doc["description"] === "string" ? { description: doc["description"] } : {}),
    ...(doc["inputs"] !== undefined ? { inputs: doc["inputs"] } : {}),
    ...(doc["output_schema"] !== undefined ? { output_schema: doc["output_schema"] } : {}),
    requires: `>=${spellbookVersion()}`,
    files: found.files,
  };
  const configBytes = Buffer.from(JSON.stringify(config));
  const blobs = files.map((f) => ({ digest: sha256(f.bytes), bytes: f.bytes, rel: f.rel }));
  const annotations: Record<string, string> = {
    [ANNOTATION.name]: config.name,
    ...(version ? { [ANNOTATION.version]: version } : {}),
    ...(config.description ? { [ANNOTATION.description]: config.description } : {}),
    [ANNOTATION.main]: config.main,
    [ANNOTATION.kind]: config.kind,
    [ANNOTATION.requires]: config.requires,
    ...(config.inputs !== undefined ? { [ANNOTATION.inputs]: JSON.stringify(config.inputs) } : {}),
    ...(config.output_schema !== undefined
      ? { [ANNOTATION.outputs]: JSON.stringify(config.output_schema) }
      : {}),
  };
  const manifest: Manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    artifactType: ARTIFACT_TYPE,
    config: { mediaType: CONFIG_TYPE, digest: sha256(configBytes), size: configBytes.length },
    layers: blobs.map((b) => ({
      mediaType: FILE_TYPE,
      digest: b.digest,
      size: b.bytes.length,
      annotations: { [TITLE]: b.rel },
    })),
    annotations,
  };
  return {
    manifest: Buffer.from(JSON.stringify(manifest)),
    config: configBytes,
    blobs: [{ digest: sha256(configBytes), bytes: configBytes }, ...blobs],
  };
}

/** A manifest's bytes as a spell artifact's manifest; anything else is refused, named. */
export function readManifest(bytes: Buffer, where: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw notSpell(where, "its manifest is not JSON");
  }
  const m = value as Partial<Manifest>;
  if (m.schemaVersion !== 2 || !m.config || !Array.isArray(m.layers))
    throw notSpell(where, "its manifest is not an OCI image manifest");
  if (m.config.mediaType !== CONFIG_TYPE)
    throw notSpell(where, `its config is ${JSON.stringify(m.config.mediaType)}, not a spell's`);
  for (const d of [m.config, ...m.layers])
    if (
      typeof d?.digest !== "string" ||
      !/^sha256:[a-f0-9]{64}$/.test(d.digest) ||
      !Number.isSafeInteger(d.size) ||
      d.size < 0
    )
      throw notSpell(where, "a descriptor has no sha256 digest or no size");
  // Bounded before any blob is asked for: a manifest cannot make the client read without end.
  if (m.layers.length > LIMITS.layers)
    throw notSpell(where, `it has ${m.layers.length} files, over ${LIMITS.layers}`);
  if (m.config.size > LIMITS.config) throw notSpell(where, "its config is over 1 MiB");
  let total = 0;
  for (const layer of m.layers) {
    if (layer.size > MAX_BLOB)
      throw notSpell(where, `a file of ${layer.size} bytes is over ${MAX_BLOB}`);
    total += layer.size;
  }
  if (total > LIMITS.total)
    throw notSpell(where, `its files are ${total} bytes together, over ${LIMITS.total}`);
  return m as Manifest;
}

/**
 * Each layer's path, checked: relative, no `..`, no empty or `.` segment, no backslash, no
 * control or invisible character, once (also as a file system that ignores case or Unicode
 * normalisation sees it), and never both a file and a folder.
 */
export function layerPaths(manifest: Manifest, where: string): string[] {
  const seen = new Set<string>();
  const refuse = (path: string, why: string) =>
    new ConfigError("unsafe_path", `${where}: refused: file ${JSON.stringify(path)} ${why}`);
  const paths = manifest.layers.map((layer) => {
    const path: unknown = layer.annotations?.[TITLE];
    if (typeof path !== "string" || path === "")
      throw notSpell(where, `layer ${layer.digest} has no file name`);
    const bad = unsafePath(path);
    if (bad) throw refuse(path, bad);
    const key = folded(path);
    if (seen.has(key)) throw refuse(path, "is in it twice");
    seen.add(key);
    return path;
  });
  for (const path of paths) {
    const segments = folded(path).split("/");
    for (let i = 1; i < segments.length; i++)
      if (seen.has(segments.slice(0, i).join("/")))
        throw refuse(path, `is under ${JSON.stringify(segments.slice(0, i).join("/"))}, a file`);
  }
  return paths;
}

/** A path as a case- and normalisation-insensitive file system tells it from others. */
const folded = (path: string): string => path.normalize("NFC").toLowerCase();

/** C0 and C1 controls, DEL, and the invisible or direction-changing format characters. */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/u;

/** Why a path from an artifact may not be written under its folder, or undefined. */
export function unsafePath(path: string): string | undefined {
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is absolute";
  if (path.includes("\\") || path.includes("\0")) return "holds a backslash or NUL";
  const segments = path.split("/");
  if (segments.includes("..")) return "climbs out of its folder with ..";
  if (segments.some((s) => s === "" || s === ".")) return "has an empty or . segment";
  if (HIDDEN.test(path)) return "holds a control or invisible character";
  // Look-alikes (a fullwidth dot or solidus) that compatibility normalisation makes `.` or `/`.
  const plain = path.normalize("NFKC");
  if (plain !== path && (plain.split("/").length !== segments.length || unsafePath(plain)))
    return "holds characters that normalise to a path separator or dot";
  if (Buffer.byteLength(path) > LIMITS.path) return `is longer than ${LIMITS.path} bytes`;
  if (segments.some((s) => Buffer.byteLength(s) > LIMITS.segment))
    return `has a name longer than ${LIMITS.segment} bytes`;
  return undefined;
}

/** The config blob's bytes as a spell's config; anything else is refused, named. */
export function readConfig(bytes: Buffer, where: string): SpellConfig {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw notSpell(where, "its config is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw notSpell(where, "its config is not an object");
  return value as SpellConfig;
}

function notSpell(where: string, why: string): SystemError {
  return new SystemError("registry_not_spell", `${where} is not a spell: ${why}`);
}
