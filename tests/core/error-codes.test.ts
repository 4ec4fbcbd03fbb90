/**
 * The error codes are one closed table (src/core/error-codes.ts), documented in one page
 * (docs/design/ERRORS.md, generated from the table: this file run with `--update`).
 * The type makes an unknown code a compile error; this test holds the rest: every code in the
 * table is used in src/, every code src/ throws is in the table with the exit code the CLI
 * really gives for it (cli/load.ts exitFor, or 1 for the conformance runner's own), every code
 * the servers answer with (`{ error: { code } }`: a helper taking `status` and `code`, or an
 * object's `code: "…"` in src/protocols/) is in the table with the HTTP status it is sent with,
 * and the page is the table.
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
/** The table and its families (error-codes-spell.ts, error-codes-http.ts): their strings are meanings. */
const TABLE = /^src\/core\/error-codes(-\w+)?\.ts$/;

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

/** A code a server answers with, and the HTTP status beside it when that is a literal. */
interface HttpUse {
  code: string;
  at: string;
  status?: number;
}

/** A function that answers an HTTP error: the positions of its `status` and `code` parameters. */
interface Responder {
  status: number;
  code: number;
}

function responderOf(params: ts.NodeArray<ts.ParameterDeclaration>): Responder | undefined {
  const names = params.map((p) => p.name.getText());
  const status = names.indexOf("status");
  const code = names.indexOf("code");
  return status >= 0 && code >= 0 ? { status, code } : undefined;
}

/** The servers (spell serve, spell view): their helpers and answers are looked for here. */
const inProtocols = (sf: ts.SourceFile) => relative(ROOT, sf.fileName).startsWith("src/protocols/");

/** Every string literal inside an expression (`a ? "x" : (b ?? "y")` → x, y). */
function stringsIn(n: ts.Node): string[] {
  if (ts.isStringLiteral(n)) return [n.text];
  const out: string[] = [];
  n.forEachChild((c) => void out.push(...stringsIn(c)));
  return out;
}

/** Every string literal of src/ (but the table) and every `new SomeError("code", …)`. */
function scan(): {
  literals: Set<string>;
  uses: Use[];
  httpUses: HttpUse[];
  extendsOf: Map<string, string>;
} {
  const literals = new Set<string>();
  const uses: Use[] = [];
  const httpUses: HttpUse[] = [];
  const responders = new Map<string, Responder>(); // fail(reply, status, code, message) and kin
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
        const r = inProtocols(sf) ? responderOf(n.initializer.parameters) : undefined;
        if (r) responders.set(n.name.getText(sf), r);
      }
      if (ts.isFunctionDeclaration(n) && n.name && inProtocols(sf)) {
        const r = responderOf(n.parameters);
        if (r) responders.set(n.name.text, r);
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
      if (ts.isStringLiteral(n) && !TABLE.test(file)) literals.add(n.text);
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
        const r = ts.isCallExpression(n) && inProtocols(sf) ? responders.get(callee) : undefined;
        const codeArg = r && n.arguments[r.code];
        if (r && codeArg) {
          const statusArg = n.arguments[r.status];
          const status =
            statusArg && ts.isNumericLiteral(statusArg) ? Number(statusArg.text) : undefined;
          for (const code of stringsIn(codeArg))
            httpUses.push({ code, at, ...(status === undefined ? {} : { status }) });
        }
      }
      if (
        file.startsWith("src/protocols/") &&
        ts.isPropertyAssignment(n) &&
        n.name.getText(sf) === "code" &&
        ts.isStringLiteral(n.initializer)
      ) {
        const at = `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
        httpUses.push({ code: n.initializer.text, at });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { literals, uses, httpUses, extendsOf };
}

const { literals, uses, httpUses, extendsOf } = scan();

/** The exit `spell` gives for an error of class `cls` thrown from `at`. */
function exitOf(cls: string, at: string): ErrorExit {
  if (at.startsWith("src/conformance/")) return 1; // `spell test`: a broken case, exit 1
  let base = cls;
  while (!(base in BASES)) base = extendsOf.get(base)!;
  return exitFor(BASES[base]!()) as ErrorExit;
}

/** docs/design/ERRORS.md, rendered from the table. */
function page(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).sort().map((code) => {
    const { exit, http, meaning } = ERROR_CODES[code];
    return `| \`${code}\` | ${exit.join(", ") || "—"} | ${http ?? ""} | ${meaning} |`;
  });
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
    "error and ends no command. Two exit codes: the meaning says which is which. A server's own",
    'answer (`spell serve`, `spell view`: `{ "error": { "code", "message" } }`) ends no command:',
    "it has no exit, only the HTTP status it is sent with.",
    "",
    "| Code | Exit | HTTP | Meaning |",
    "| --- | --- | --- | --- |",
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

  it("every code a server answers with is in the table, with the HTTP status it is sent with", () => {
    const unknown = httpUses
      .filter((u) => !(u.code in ERROR_CODES))
      .map((u) => `${u.code} at ${u.at}`);
    expect(unknown).toEqual([]);
    const wrongStatus = httpUses
      .filter((u) => u.code in ERROR_CODES && u.status !== undefined)
      .filter((u) => ERROR_CODES[u.code as ErrorCode].http !== u.status)
      .map((u) => `${u.code} sent as ${u.status} at ${u.at}`);
    expect(wrongStatus).toEqual([]);
    expect(httpUses.length).toBeGreaterThan(15); // the scan found the servers' answers
  });

  it("docs/design/ERRORS.md is the table", async () => {
    await expect(page()).toMatchFileSnapshot("../../docs/design/ERRORS.md");
  });
});
