// The docs name files that exist, inside the repository: every `path.ext` written in backticks
// in the README and docs/ (and every path in the comments of the YAML suites) is a file of the
// checkout — found from the repository's root, src/, tests/, docs/design/ or the document's
// own folder, or, for a bare file name, anywhere in the checkout. The lists of design notes
// name every note.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { Cantrip, loadSpell } from "../../src/index.js";

const root = process.cwd();
const skip = new Set(["node_modules", ".git", "dist", ".spellbook"]);
const files: string[] = [];
(function walk(dir: string) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(e.name)) continue;
    if (e.isDirectory()) walk(join(dir, e.name));
    else files.push(relative(root, join(dir, e.name)));
  }
})(root);
const names = new Set(files.map((f) => basename(f)));

/** Names that are not files of the checkout on purpose; each with its reason. */
const NOT_OURS: Record<string, string> = {
  "settings.json": "Zed's settings file, in the user's editor",
  "bench/results/latest.json": "written by each `npm run bench`, git-ignored",
};
/** A path written as a pattern: an upper-case word (`DIR/`, `NAME.state.json`) or `dir/name`. */
const isPattern = (p: string) =>
  /(^|\/)[A-Z][A-Z_]+(\/|\.(?!md$))/.test(p) || /\bdir\/name\./.test(p);

const notes = readdirSync("docs/design").map((f) => `docs/design/${f}`);
const documents = ["README.md", "docs/providers.md", ...notes];
const PATH = /[\w./@-]*[\w-]+\.(?:ts|mjs|cjs|js|md|yaml|yml|json|jsonl)\b/g;

/**
 * A span that is a path of ours: under a folder of the checkout (or a layer of src/), or a bare
 * source or note name. A span like `file.yaml` or `./child.yaml` is the user's file in an example.
 */
const TOP =
  /^(src|tests|docs|spells|grimoire|schemas|bench|scripts|bin|core|circle|llm|loom|spell|routes|council|conformance|protocols|cli|commands)\//;
const isOurs = (span: string): boolean =>
  new RegExp(`^${PATH.source}$`).test(span) &&
  (TOP.test(span) || /^[\w.-]+\.(ts|mjs|cjs|md)$/.test(span));

function missing(doc: string, path: string): string | undefined {
  if (/^https?:/.test(path) || isPattern(path) || NOT_OURS[path] !== undefined) return undefined;
  const candidates = [".", "src", "tests", "docs/design", dirname(doc)].map((d) =>
    resolve(root, d, path),
  );
  const inside = candidates.filter((c) => !relative(root, c).startsWith(".."));
  if (inside.some((c) => existsSync(c))) return undefined;
  if (!path.includes("/") && names.has(path)) return undefined;
  return `${doc}: ${path}`;
}

describe("the docs name files that exist", () => {
  it("in the README and docs/, every source, test or note path in backticks", () => {
    const bad: string[] = [];
    for (const doc of documents) {
      for (const m of readFileSync(doc, "utf8").matchAll(/`([^`\n]+)`/g)) {
        const b = isOurs(m[1]!) ? missing(doc, m[1]!) : undefined;
        if (b) bad.push(b);
      }
    }
    expect(bad).toEqual([]);
  });

  it("in the comments of tests.yaml and flow-tests.yaml, inside the repository", () => {
    const bad: string[] = [];
    for (const doc of ["tests.yaml", "flow-tests.yaml"]) {
      for (const line of readFileSync(doc, "utf8").split("\n")) {
        const comment = /(?:^|\s)#\s(.*)$/.exec(line)?.[1] ?? "";
        for (const path of comment.match(PATH) ?? []) {
          const b = missing(doc, path);
          if (b) bad.push(b);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it("the lists of design notes name every note", () => {
    const every = notes.map((n) => basename(n, ".md"));
    const architecture = readFileSync("docs/design/ARCHITECTURE.md", "utf8");
    const listed =
      /^docs\/design\/\s+these notes: (.*(?:\n {8,}.*)*)$/m.exec(architecture)?.[1] ?? "";
    const readme = /^Design notes: .*\((.*)\);?$/m.exec(readFileSync("README.md", "utf8"))?.[1];
    for (const note of every) {
      expect(listed, `ARCHITECTURE.md's list of notes lacks ${note}`).toContain(note);
      expect(readme, `the README's list of notes lacks ${note}`).toContain(note);
    }
  });
});

/** The source files (generated ones aside) with their comments: line comments and blocks. */
const sources = files
  .filter((f) => /^src\/.*\.(ts|mjs)$/.test(f) && !f.startsWith("src/generated/"))
  .map((f) => {
    const text = readFileSync(f, "utf8");
    const comments = (text.match(/\/\*[\s\S]*?\*\/|\/\/.*$/gm) ?? []).map((c) =>
      c.replace(/\n\s*\*\s?/g, " "),
    );
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    return { file: f, comments, code };
  });

/** A note's headings and bold run-in titles, lower case: what `NOTE.md "Section"` may cite. */
const headings = (note: string): string[] | undefined => {
  const at = [join("docs/design", note), note, join("docs", note)].find((p) => existsSync(p));
  if (!at) return undefined;
  const text = readFileSync(at, "utf8");
  return [...text.matchAll(/^#+\s+(.*)$|^\*\*([^*]+)\*\*/gm)].map((m) =>
    (m[1] ?? m[2]!).toLowerCase(),
  );
};

/**
 * Words in comments written like identifiers (a capital inside) that are not ours: names of
 * products, formats and other libraries' classes or methods.
 */
const NOT_CODE = new Set([
  ...["TypeScript", "CommonJS", "camelCase", "PostgreSQL", "DeepSeek", "WebRTC", "OpenAPI"],
  ...["GiB", "uXXXX"],
  // Placeholders: a version in a user agent.
  "vX",
  // The A2A SDK's in-memory task store and the A2A method name.
  ...["InMemoryTaskStore", "SendMessage"],
  // systemd's setting the bash sandbox's seccomp filter follows; GitHub's secret masking.
  ...["RestrictSUIDSGID", "GitHub"],
]);

describe("the source's comments cite what exists", () => {
  it("every source, test or note path in a comment of src/ is a file of the checkout", () => {
    const bad: string[] = [];
    for (const { file, comments } of sources)
      for (const comment of comments)
        for (const path of comment.match(PATH) ?? []) {
          // A path under a layer of src/ may be written from src/ or from the file's own layer.
          const b = isOurs(path) ? missing(file, path) : undefined;
          if (b && missing(file, join(relative("src", dirname(file)).split("/")[0]!, path)))
            bad.push(b);
        }
    expect(bad).toEqual([]);
  });

  it('every section a comment of src/ or a doc cites as NOTE.md "Section" is a heading of that note', () => {
    const bad: string[] = [];
    const texts = [
      ...sources.flatMap(({ file, comments }) => comments.map((text) => ({ file, text }))),
      ...documents.map((doc) => ({
        file: doc,
        text: readFileSync(doc, "utf8").replace(/\n/g, " "),
      })),
    ];
    for (const { file, text } of texts)
      for (const m of text.matchAll(/\b([A-Z][A-Z0-9-]*\.md)(?:'s)?,? (?:section )?"([^"]+)"/g)) {
        const titles = headings(m[1]!);
        const title = m[2]!.toLowerCase().replace(/\s+/g, " ");
        if (!titles?.some((t) => t.includes(title))) bad.push(`${file}: ${m[1]} "${m[2]}"`);
      }
    expect(bad).toEqual([]);
  });

  it("every name a comment writes like an identifier (camelCase, PascalCase) is one of the code's", () => {
    const code = new Set(sources.flatMap((s) => s.code.match(/[A-Za-z_$][\w$]*/g) ?? []));
    const bad: string[] = [];
    for (const { file, comments } of sources)
      for (const comment of comments)
        for (const [word] of comment.matchAll(/\b[A-Za-z]*[a-z][A-Z]\w*\b/g))
          if (!code.has(word) && !NOT_CODE.has(word)) bad.push(`${file}: ${word}`);
    expect([...new Set(bad)]).toEqual([]);
  });
});

describe("the docs promise only what the loader and the API do", () => {
  it("extends: is refused by the loader, and SPELL-FORMAT.md says so instead of promising it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "extends-"));
    writeFileSync(join(dir, "base.yaml"), "llm: scripted\n");
    const spell = join(dir, "spell.yaml");
    writeFileSync(
      spell,
      "extends: ./base.yaml\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\n",
    );
    await expect(loadSpell(spell, { loomPath: "memory" })).rejects.toThrow(/extends/);
    const format = readFileSync("docs/design/SPELL-FORMAT.md", "utf8");
    expect(format).not.toMatch(/`extends: [^`]*` \(deep merge/);
    expect(format).toMatch(/There is no `extends:`/);
  });

  it("Cantrip.from is not named by any doc, as the API has none", () => {
    expect((Cantrip as unknown as Record<string, unknown>)["from"]).toBeUndefined();
    for (const doc of documents)
      expect(readFileSync(doc, "utf8"), doc).not.toMatch(/Cantrip\.from\(/);
  });
});

describe("docs/design/SEED-002.md", () => {
  const page = readFileSync("docs/design/SEED-002.md", "utf8");
  it("maps the Verify it of every one of seed 002's nine sections", () => {
    const sections = [...page.matchAll(/^## (\w+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual([
      "Cantrip",
      "Identity",
      "Medium",
      "Gates",
      "Wards",
      "Circle",
      "Loom",
      "Entity",
      "Familiar",
    ]);
  });

  it("names tests.yaml cases that exist, under the rule it gives", () => {
    const cases = parseYaml(readFileSync("tests.yaml", "utf8")) as { rule: string; name: string }[];
    const cited = [...page.matchAll(/\b([A-Z]+-\d+) `([^`]+)`/g)];
    expect(cited.length).toBeGreaterThan(15);
    for (const [, rule, name] of cited) {
      const prefix = name!.split("…")[0]!.trim();
      const found = cases.some((c) => c.rule === rule && c.name.startsWith(prefix));
      expect(found, `${rule} \`${name}\``).toBe(true);
    }
  });
});
