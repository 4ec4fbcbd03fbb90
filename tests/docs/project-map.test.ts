// The README's "The project" map names every folder of src/, one line each, and no folder that
// is not there: a folder added (or a loom room made) without its line fails, and so does a line
// left behind by a move. src/generated/ is one line (whatever `npm run gen` puts under it).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** The fenced block under "## The project": its entries, the first word of each line. */
function mapEntries(readme: string): string[] {
  const at = readme.indexOf("## The project\n");
  expect(at, 'README.md has a "## The project" section').toBeGreaterThan(-1);
  const block = /```\n([\s\S]*?)```/.exec(readme.slice(at))?.[1] ?? "";
  return block
    .split("\n")
    .filter((line) => /^\S/.test(line))
    .map((line) => line.split(/\s+/)[0]!);
}

/** Every folder under src/ holding a file (at any depth), as `src/a/b/`; generated/'s inside not. */
function srcFolders(dir = "src"): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const path = join(dir, e.name);
    if (!holdsFile(path)) continue;
    out.push(`${path}/`);
    if (path !== join("src", "generated")) out.push(...srcFolders(path));
  }
  return out;
}
const holdsFile = (dir: string): boolean =>
  readdirSync(dir, { withFileTypes: true }).some(
    (e) => e.isFile() || (e.isDirectory() && holdsFile(join(dir, e.name))),
  );

const entries = mapEntries(readFileSync("README.md", "utf8"));
const named = entries.filter((e) => e.startsWith("src/"));

describe("README's project map and src/'s folders", () => {
  it("every folder of src/ has its line", () => {
    const missing = srcFolders().filter((f) => !named.includes(f));
    expect(missing, "folders of src/ the README's map does not name").toEqual([]);
  });

  it("every line of the map names a folder that is there, once", () => {
    const folders = new Set(srcFolders());
    expect(named.filter((e) => !folders.has(e))).toEqual([]);
    expect(named.filter((e, i) => named.indexOf(e) !== i)).toEqual([]);
    // The entries outside src/ (schemas/, bin/, tests.yaml…) are paths of the checkout too.
    expect(entries.filter((e) => !e.startsWith("src/") && !existsSync(e))).toEqual([]);
  });

  it("a folder the map lacks, or a line naming no folder, is found (the check is not vacuous)", () => {
    const all = srcFolders();
    expect(all.length).toBeGreaterThan(10);
    expect(all).toContain("src/loom/");
    const readme = readFileSync("README.md", "utf8");
    const without = mapEntries(readme.replace(/^src\/otel\/ .*\n/m, ""));
    expect(all.filter((f) => !without.includes(f))).toEqual(["src/otel/"]);
    const extra = mapEntries(readme.replace("## The project\n\n```\n", "$&src/nowhere/  x\n"));
    expect(extra.filter((e) => e.startsWith("src/") && !all.includes(e))).toEqual(["src/nowhere/"]);
  });
});
