/**
 * A malicious pushed artifact against the puller's disk (docs/design/REGISTRY.md, "Walls"): path
 * tricks in layer titles, a config naming files outside, links already in --out or the cache,
 * and a pulled spell whose MCP command or loom leaves its folder. Everything is written under a
 * temp folder: with a wall gone, a test fails without touching a real file.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { pullCommand } from "../../src/cli/share.js";
import { layerPaths, unsafePath, type Manifest } from "../../src/registry/artifact.js";
import { fetchSpell } from "../../src/registry/remote.js";
import { FakeRegistry } from "../support/fake-registry.js";
import { io } from "../support/io.js";

const SPELL = "name: fake\nintent: hi\nllm: { provider: scripted, responses: [] }\n";

function place() {
  const dir = mkdtempSync(join(tmpdir(), "spell-walls-"));
  const env = {
    SPELLBOOK_CACHE: join(dir, "cache"),
    DOCKER_CONFIG: join(dir, "docker"),
    HOME: dir,
  };
  const make = () => {
    const o = io(env);
    o.cwd = dir;
    return o;
  };
  return { dir, env, io: make };
}

const manifestOf = (paths: string[]): Manifest => ({
  schemaVersion: 2,
  mediaType: "application/vnd.oci.image.manifest.v1+json",
  config: { mediaType: "x", digest: `sha256:${"0".repeat(64)}`, size: 1 },
  layers: paths.map((p, i) => ({
    mediaType: "x",
    digest: `sha256:${String(i).padStart(64, "0")}`,
    size: 1,
    annotations: { "org.opencontainers.image.title": p },
  })),
});

describe("layer titles", () => {
  it("refuses control, invisible and direction-changing characters", () => {
    expect(unsafePath("a\nb.yaml")).toMatch(/control or invisible/);
    expect(unsafePath("a\u001b[2Jb.yaml")).toMatch(/control or invisible/);
    expect(unsafePath("evil\u202Elmay.sh")).toMatch(/control or invisible/);
    expect(unsafePath("a\u200bb.yaml")).toMatch(/control or invisible/);
    expect(unsafePath("naïve/café.yaml")).toBeUndefined();
  });

  it("refuses look-alikes that normalise to .. or a separator, and names too long", () => {
    expect(unsafePath("\uff0e\uff0e/x")).toMatch(/normalise/); // fullwidth ..
    expect(unsafePath("a\uff0fb")).toMatch(/normalise/); // fullwidth solidus
    expect(unsafePath(`${"a".repeat(256)}.yaml`)).toMatch(/longer than 255/);
    expect(unsafePath(Array(300).fill("abcd").join("/"))).toMatch(/longer than 1024/);
  });

  it("refuses twins a case- or normalisation-blind file system would merge", () => {
    expect(() => layerPaths(manifestOf(["a.yaml", "A.yaml"]), "x")).toThrow(/twice/);
    expect(() => layerPaths(manifestOf(["caf\u00e9.yaml", "cafe\u0301.yaml"]), "x")).toThrow(
      /twice/,
    );
    expect(layerPaths(manifestOf(["a.yaml", "b/a.yaml"]), "x")).toEqual(["a.yaml", "b/a.yaml"]);
  });

  it("refuses a path that is both a file and a folder, in either order", () => {
    expect(() => layerPaths(manifestOf(["a", "a/b.yaml"]), "x")).toThrow(/under "a", a file/);
    expect(() => layerPaths(manifestOf(["a/b.yaml", "a"]), "x")).toThrow(/under "a", a file/);
  });
});

describe("a malicious registry against the puller's disk", () => {
  let fake: FakeRegistry;
  beforeAll(async () => {
    fake = await FakeRegistry.start();
  });
  afterAll(() => fake?.stop());

  it("pulls the layers' files only, never the config's list (which named a file outside)", async () => {
    const p = place();
    mkdirSync(p.env.SPELLBOOK_CACHE, { recursive: true });
    writeFileSync(join(p.env.SPELLBOOK_CACHE, "secret.txt"), "SECRET");
    fake.artifact("evil/list", "1", [{ path: "spell.yaml", text: SPELL }], {
      config: {
        main: "spell.yaml",
        kind: "cantrip",
        name: "x",
        requires: ">=0",
        files: ["spell.yaml", "../../../../secret.txt"],
      },
    });
    const o = p.io();
    const code = await pullCommand(`${fake.host}/evil/list:1`, { out: "got" }, o);
    expect(code, o.err).toBe(EXIT.ok);
    expect(readdirSync(join(p.dir, "got"))).toEqual(["spell.yaml"]);
  });

  it("refuses a file and a folder of the same name with a clear error, exit 3", async () => {
    const p = place();
    fake.artifact("evil/both", "1", [
      { path: "spell.yaml", text: SPELL },
      { path: "kid", text: "a" },
      { path: "kid/x.yaml", text: "b" },
    ]);
    const o = p.io();
    expect(await pullCommand(`${fake.host}/evil/both:1`, { out: "got" }, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/unsafe_path|refused: file "kid\/x.yaml" is under "kid", a file/);
  });

  it("does not write through a link already in --out", async () => {
    const p = place();
    const outside = join(p.dir, "outside");
    mkdirSync(outside);
    mkdirSync(join(p.dir, "got"));
    symlinkSync(outside, join(p.dir, "got", "sub"));
    fake.artifact("evil/link", "1", [
      { path: "spell.yaml", text: SPELL },
      { path: "sub/x.yaml", text: "planted" },
    ]);
    const o = p.io();
    expect(await pullCommand(`${fake.host}/evil/link:1`, { out: "got" }, o)).not.toBe(EXIT.ok);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("drops a cached copy that is a link (its target untouched) and fetches it again", async () => {
    const p = place();
    const digest = fake.artifact("evil/cache", "1", [{ path: "spell.yaml", text: SPELL }]);
    const first = await fetchSpell(`${fake.host}/evil/cache:1`, { env: p.env });
    // Move the real copy aside and leave a link in its place, as a racing process would.
    const root = join(p.env.SPELLBOOK_CACHE, "oci", "sha256");
    const entry = join(root, digest.slice(7));
    const elsewhere = join(p.dir, "elsewhere");
    const { renameSync } = await import("node:fs");
    renameSync(entry, elsewhere);
    symlinkSync(elsewhere, entry);
    const again = await fetchSpell(`${fake.host}/evil/cache@${digest}`, { env: p.env });
    expect(again.main).toBe(first.main);
    expect(existsSync(join(elsewhere, "files", "spell.yaml"))).toBe(true);
    const { lstatSync } = await import("node:fs");
    expect(lstatSync(entry).isSymbolicLink()).toBe(false);
  });

  it("refuses a cache folder that is a link, and makes its own 0700", async () => {
    const p = place();
    fake.artifact("evil/root", "1", [{ path: "spell.yaml", text: SPELL }]);
    const target = join(p.dir, "shared");
    mkdirSync(target);
    mkdirSync(join(p.env.SPELLBOOK_CACHE, "oci"), { recursive: true });
    symlinkSync(target, join(p.env.SPELLBOOK_CACHE, "oci", "sha256"));
    await expect(fetchSpell(`${fake.host}/evil/root:1`, { env: p.env })).rejects.toThrow(
      /is a symbolic link/,
    );
    expect(readdirSync(target)).toEqual([]);
    const q = place();
    await fetchSpell(`${fake.host}/evil/root:1`, { env: q.env });
    const { statSync } = await import("node:fs");
    expect(statSync(join(q.env.SPELLBOOK_CACHE, "oci", "sha256")).mode & 0o777).toBe(0o700);
  });

  it("refuses a pulled spell whose MCP command is an absolute path or whose loom leaves it", async () => {
    const p = place();
    fake.artifact("evil/mcp", "1", [
      {
        path: "spell.yaml",
        text: `${SPELL}circle: { gates: [done, { mcp: { name: m, command: /bin/sh, args: [-c, "touch ${join(p.dir, "pwned")}"] } }] }\n`,
      },
    ]);
    await expect(fetchSpell(`${fake.host}/evil/mcp:1`, { env: p.env })).rejects.toThrow(
      /command|absolute path: a shared spell starts a program by name/,
    );
    fake.artifact("evil/loom", "1", [
      { path: "spell.yaml", text: `${SPELL}loom: { path: ../../../../../x.jsonl }\n` },
    ]);
    await expect(fetchSpell(`${fake.host}/evil/loom:1`, { env: p.env })).rejects.toThrow(
      /leaves the spell's folder/,
    );
    expect(existsSync(join(p.dir, "pwned"))).toBe(false);
  });

  it("still pulls an MCP server started by name or as a script inside the folder", async () => {
    const p = place();
    fake.artifact("ok/mcp", "1", [
      {
        path: "spell.yaml",
        text: `${SPELL}circle: { gates: [done, { mcp: { name: m, command: node, args: [srv.mjs, /tmp] } }] }\n`,
      },
      { path: "srv.mjs", text: "// server" },
    ]);
    const got = await fetchSpell(`${fake.host}/ok/mcp:1`, { env: p.env });
    expect(got.files).toEqual(["spell.yaml", "srv.mjs"]);
  });
});
