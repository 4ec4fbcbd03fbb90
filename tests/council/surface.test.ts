/** §11 criterion 9: `spellbook/council` exposes the engine, its config and its result, nothing else. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as council from "../../src/spell/crucible.js";
import { needs, notBuilt } from "../support/needs.js";

const ENTRY = new URL("../../src/spell/crucible.ts", import.meta.url);

/** Every name the entry file exports, values and types. */
function exportedNames(): string[] {
  const file = ts.createSourceFile("index.ts", readFileSync(ENTRY, "utf8"), ts.ScriptTarget.Latest);
  const names: string[] = [];
  file.forEachChild((node) => {
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
      for (const el of node.exportClause.elements) names.push(el.name.text);
    else if (
      ts.canHaveModifiers(node) &&
      ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    )
      names.push(ts.isClassDeclaration(node) && node.name ? node.name.text : node.getText(file));
  });
  return names.sort();
}

describe("spellbook/council", () => {
  it("at run time exports only the engine class", () => {
    expect(Object.keys(council)).toEqual(["Crucible"]);
    expect(typeof council.Crucible).toBe("function");
  });

  it("names only Crucible, EngineConfig and ExecutorResult", () => {
    expect(exportedNames()).toEqual(["Crucible", "EngineConfig", "ExecutorResult"]);
  });

  it("is the package's ./council entry", () => {
    const pkg = JSON.parse(
      readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
    ) as {
      exports: Record<string, unknown>;
    };
    expect(pkg.exports["./council"]).toEqual({
      types: "./dist/spell/crucible.d.ts",
      default: "./dist/spell/crucible.js",
    });
  });

  // The built package (npm run build, as the CLI tests need too), imported by its name.
  needs(notBuilt("dist/spell/crucible.js")).it(
    "import('spellbook/council') from the built package gives only Crucible",
    () => {
      const out = execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          "console.log(Object.keys(await import('spellbook/council')).join())",
        ],
        { encoding: "utf8" },
      );
      expect(out.trim()).toBe("Crucible");
    },
  );
});
