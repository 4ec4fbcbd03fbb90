import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { MEDIUM_SYNONYMS } from "../../src/spell/compile-medium.js";

// What an editor reads from schemas/ (yaml-language-server, VS Code): hover text, deprecations,
// and addresses that resolve inside the installed package.
type Node = Record<string, unknown> & {
  $id?: string;
  $ref?: string;
  description?: string;
  properties?: Record<string, Node>;
  $defs?: Record<string, Node>;
};
const dir = resolve("schemas");
const names = readdirSync(dir).filter((f) => f.endsWith(".schema.json"));
const load = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as Node;

/** The node a `$ref` names, from the schema `from` (another file of schemas/ or its own $defs). */
function target(from: string, ref: string): Node | undefined {
  const [file, pointer = ""] = ref.split("#");
  let node: unknown = load(file ? file : from);
  for (const part of pointer.split("/").filter(Boolean)) node = (node as Node)[part];
  return node as Node | undefined;
}

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refs(item, out);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else refs(value, out);
    }
  }
  return out;
}

describe("schemas as editors read them", () => {
  it("finds every schema of the package", () => {
    expect(names).toEqual(expect.arrayContaining(["spell.schema.json", "eval.schema.json"]));
  });

  it.each(names)("%s: every top-level key has a description to show on hover", (name) => {
    const schema = load(name);
    expect(schema.description, name).toBeTypeOf("string");
    const missing = Object.entries(schema.properties ?? {})
      .filter(([, node]) => {
        if (typeof node.description === "string" && node.description.length > 0) return false;
        const ref = node.$ref ? target(name, node.$ref) : undefined;
        return !(typeof ref?.description === "string" && ref.description.length > 0);
      })
      .map(([key]) => key);
    expect(missing, `${name}: keys without a description`).toEqual([]);
  });

  it.each(names)("%s: a Markdown description always has a plain one beside it", (name) => {
    const lonely: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`));
      else if (node && typeof node === "object") {
        const o = node as Node;
        if (typeof o["markdownDescription"] === "string" && typeof o.description !== "string")
          lonely.push(at);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      }
    };
    walk(load(name), "#");
    expect(lonely).toEqual([]);
  });

  it("spell: the circle's main keys have descriptions", () => {
    const circle = load("spell.schema.json").$defs!["circle"]!;
    for (const key of ["medium", "gates", "wards"]) {
      expect(circle.properties![key]!.description, key).toMatch(/\w/);
    }
  });

  it("spell: the other names of medium are deprecated and left out of completion", () => {
    const circle = load("spell.schema.json").$defs!["circle"]!.properties!;
    for (const key of MEDIUM_SYNONYMS) {
      expect(circle[key], key).toMatchObject({ deprecated: true, doNotSuggest: true });
      expect(circle[key]!["deprecationMessage"], key).toMatch(/medium:/);
    }
    const deprecated = Object.keys(circle).filter((k) => circle[k]!["deprecated"] === true);
    expect(deprecated.sort()).toEqual([...MEDIUM_SYNONYMS].sort());
    expect(circle["medium"]!["deprecated"]).toBeUndefined();
  });

  it.each(names)(
    "%s: its $id resolves to the file itself, and its $refs to files beside it",
    (name) => {
      const schema = load(name);
      const base = pathToFileURL(join(dir, name)).href;
      expect(new URL(schema.$id!, base).href).toBe(base);
      for (const ref of refs(schema)) {
        const file = ref.split("#")[0]!;
        if (!file) continue;
        const url = new URL(file, base);
        expect(existsSync(url), `${name}: $ref ${ref}`).toBe(true);
        expect(target(name, ref), `${name}: $ref ${ref}`).toBeDefined();
      }
    },
  );

  it.each(names)("%s: the package exports it at spellbook/schemas/%s", (name) => {
    const require = createRequire(import.meta.url);
    expect(require.resolve(`spellbook/schemas/${name}`)).toBe(join(dir, name));
  });

  it("the package's files include every schema", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const name of names) expect(files).toContain(`schemas/${name}`);
  });

  it("every spell, eval and council in this repository names its kind's schema", () => {
    const modeline = /^# yaml-language-server: \$schema=(\S+)$/m;
    const expected: Record<string, string> = {
      eval: "eval.schema.json",
      council: "council.schema.json",
      flow: "flow.schema.json",
    };
    for (const file of [
      "spells/arithmetic-eval.yaml",
      "spells/council.yaml",
      "spells/arithmetic.yaml",
    ]) {
      const text = readFileSync(file, "utf8");
      const kind = /^kind: (\S+)/m.exec(text)?.[1] ?? "cantrip";
      const schema = modeline.exec(text)?.[1];
      expect(schema, file).toBeDefined();
      expect(schema!.endsWith(expected[kind] ?? "spell.schema.json"), file).toBe(true);
      expect(existsSync(resolve(file, "..", schema!)), file).toBe(true);
    }
  });
});
