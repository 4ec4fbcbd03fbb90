/**
 * The error codes are one closed table (src/core/error-codes.ts), documented in one page
 * (docs/design/ERRORS.md, generated from the table: this file run with `--update`).
 * The type makes an unknown code a compile error; this test holds the rest: every code in the
 * table is used in src/, every code src/ throws is in the table with the exit code the CLI
 * really gives for it (cli/load.ts exitFor, or 1 for the conformance runner's own), and the
 * page is the table.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { exitFor } from "../../src/cli/load.js";
import { ERROR_CODES, type ErrorCode, type ErrorExit } from "../../src/core/error-codes.js";
import { ConfigError, ModelError, SpellbookError, SystemError } from "../../src/core/errors.js";
import { ProviderError } from "../../src/llm/errors.js";

const ROOT = join(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");
const TABLE = "src/core/error-codes.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** One instance of each base class: what the CLI's exitFor makes of that family. */
const BASES: Record<string, () => SpellbookError> = {
  SpellbookError: () => new SpellbookError("schema", "x"),
  ConfigError: () => new ConfigError("schema", "x"),
  SystemError: () => new SystemError("loom_io", "x"),
  ModelError: () => new ModelError("empty_response", "x"),
  ProviderError: () => new ProviderError("provider_error", "x", { provider: "p" }),
};

interface Use {
  code: string;
  at: string;
  /** The error class constructed, when the literal is its first argument. */
  cls?: string;
}

/** Every string literal of src/ (but the table) and every `new SomeError("code", …)`. */
function scan(): { literals: Set<string>; uses: Use[]; extendsOf: Map<string, string> } {
  const literals = new Set<string>();
  const uses: Use[] = [];
  const extendsOf = new Map<string, string>();
  const wrappers = new Set<string>(); // local functions whose parameter is typed ErrorCode
  const files = sourceFiles(SRC).map((file) => {
    const text = readFileSync(file, "utf8");
    return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  });
  for (const sf of files) {
    const visit = (n: ts.Node): void => {
      if (ts.isClassDeclaration(n) && n.name) {
        const base = n.heritageClauses?.[0]?.types[0]?.expression.getText(sf);
        if (base) extendsOf.set(n.name.text, base);
      }
      if (ts.isVariableDeclaration(n) && n.initializer && ts.isArrowFunction(n.initializer)) {
        const first = n.initializer.parameters[0];
        if (first?.type?.getText(sf) === "ErrorCode") wrappers.add(n.name.getText(sf));
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  const isErrorClass = (name: string): boolean => {
    for (let c: string | undefined = name; c; c = extendsOf.get(c)) if (c in BASES) return true;
    return false;
  };
  for (const sf of files) {
    const file = relative(ROOT, sf.fileName);
    const visit = (n: ts.Node): void => {
      if (ts.isStringLiteral(n) && file !== TABLE) literals.add(n.text);
      if ((ts.isNewExpression(n) || ts.isCallExpression(n)) && n.arguments?.[0]) {
        const callee = n.expression.getText(sf);
        let first = n.arguments[0];
        while (ts.isAsExpression(first) || ts.isParenthesizedExpression(first))
          first = first.expression;
        const at = `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
        if (ts.isStringLiteral(first) && ts.isNewExpression(n) && isErrorClass(callee))
          uses.push({ code: first.text, at, cls: callee });
        else if (ts.isStringLiteral(first) && ts.isCallExpression(n) && wrappers.has(callee))
          uses.push({ code: first.text, at });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { literals, uses, extendsOf };
}

const { literals, uses, extendsOf } = scan();

/** The exit `spell` gives for an error of class `cls` thrown from `at`. */
function exitOf(cls: string, at: string): ErrorExit {
  if (at.startsWith("src/conformance/")) return 1; // `spell test`: a broken case, exit 1
  let base = cls;
  while (!(base in BASES)) base = extendsOf.get(base)!;
  return exitFor(BASES[base]!()) as ErrorExit;
}

/** docs/design/ERRORS.md, rendered from the table. */
function page(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
    .sort()
    .map(
      (code) =>
        `| \`${code}\` | ${ERROR_CODES[code].exit.join(", ")} | ${ERROR_CODES[code].meaning} |`,
    );
  return [
    "# Error codes",
    "",
    "<!-- Generated from src/core/error-codes.ts: npx vitest run tests/core/error-codes.test.ts --update -->",
    "",
    "Every error Spellbook throws carries one of these codes (`err.code`; the type `ErrorCode`).",
    "Scripts and tests match on the code, never on the message. The exit code is what `spell` gives",
    "when the error ends a command: 3 the spell, a flag or a call must be fixed; 4 something outside",
    "the spell failed (IO, a provider) or the model broke the contract; 1 `spell test` counted a broken",
    "case. An error raised inside a gate call (call_entity's refusals) reaches the model as the gate's",
    "error and ends no command. Two exit codes: the meaning says which is which.",
    "",
    "| Code | Exit | Meaning |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

describe("error codes: one closed table", () => {
  it("every code src/ throws is in the table", () => {
    const unknown = uses.filter((u) => !(u.code in ERROR_CODES)).map((u) => `${u.code} at ${u.at}`);
    expect(unknown).toEqual([]);
  });

  it("every code in the table is used in src/", () => {
    const unused = Object.keys(ERROR_CODES).filter((code) => !literals.has(code));
    expect(unused).toEqual([]);
  });

  it("the table's exit codes are the ones the CLI gives for the classes that throw each code", () => {
    const seen = new Map<string, Set<ErrorExit>>();
    for (const u of uses)
      if (u.cls)
        (seen.get(u.code) ?? seen.set(u.code, new Set()).get(u.code)!).add(exitOf(u.cls, u.at));
    const wrong = [...seen]
      .map(([code, exits]) => ({
        code,
        given: [...exits].sort(),
        table: [...(ERROR_CODES[code as ErrorCode]?.exit ?? [])].sort(),
      }))
      .filter((r) => JSON.stringify(r.given) !== JSON.stringify(r.table));
    expect(wrong).toEqual([]);
    expect(seen.size).toBeGreaterThan(100); // the scan found the throws
  });

  it("docs/design/ERRORS.md is the table", async () => {
    await expect(page()).toMatchFileSnapshot("../../docs/design/ERRORS.md");
  });
});
