// Every regular expression that comes from a spell, a data set or a model matches in linear
// time (RE2, src/core/linear-pattern.ts). The pattern `^(\w+\s?)+$` against 32 word
// characters and a "!" held `spell eval` for ever with JavaScript's RegExp. Each entry point is
// driven in a process of its own, bounded by spawnSync's timeout: a pattern that backtracks
// holds that process (killed at the bound, the test fails), never the test runner. Each aims
// only at what the test wrote (a scratch folder, a scripted model, its own MCP server).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { needs, notBuilt } from "../support/needs.js";

const root = process.cwd();

const EVIL = String.raw`^(\w+\s?)+$`;
const ANSWER = `${"a".repeat(32)}!`;
/** Bounds a process a backtracking pattern would hold (a hang, never a speed check). */
const BOUND_MS = 60_000;

function bounded(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, args, {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", HOME: cwd },
    encoding: "utf8",
    timeout: BOUND_MS,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** An ES module run against the build (dist/), printing one JSON line. */
function inChild(code: string) {
  const dir = mkdtempSync(join(tmpdir(), "linear-"));
  writeFileSync(join(dir, "probe.mjs"), code.replaceAll("DIST/", `${join(root, "dist")}/`));
  const r = bounded([join(dir, "probe.mjs")], dir);
  expect(r.signal, `held past ${BOUND_MS} ms: ${r.stderr}`).toBeNull();
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

const ECHO = `kind: cantrip
name: echo
llm: { provider: scripted, cycle: true, responses: [{ content: "${ANSWER}" }] }
identity: { system_prompt: Say it. }
circle:
  gates: [done]
  wards: [{ max_turns: 1 }]
`;

needs(notBuilt("dist/index.js"), notBuilt()).describe(
  "patterns from spells, data and models match in linear time",
  { timeout: 240_000 },
  () => {
    it("spell eval: result_matches and a result_schema pattern fail the case at once (exit 1)", () => {
      const dir = mkdtempSync(join(tmpdir(), "linear-eval-"));
      writeFileSync(join(dir, "echo.yaml"), ECHO);
      const cases = `  - { name: matches, intent: say, expect: [{ result_matches: '${EVIL}' }] }
  - { name: schema, intent: say, expect: [{ result_schema: { type: string, pattern: '${EVIL}' } }] }
  - { name: holds, intent: say, expect: [{ result_matches: '^\\w+!$' }] }
`;
      writeFileSync(
        join(dir, "eval.yaml"),
        `kind: eval\nname: p\nspells: [./echo.yaml]\ncases:\n${cases}repeat: 1\nconcurrency: 1\npass: { rate: 0.3 }\n`,
      );
      const r = bounded([join(root, "bin/run.js"), "eval", "eval.yaml", "--out", "out"], dir);
      expect(r.signal, `spell eval held past ${BOUND_MS} ms`).toBeNull();
      const rows = readFileSync(join(dir, "out/results.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { case: string; status: string; reason: string });
      const by = Object.fromEntries(rows.map((x) => [x.case, x]));
      expect(by["matches"]).toMatchObject({ status: "fail" });
      expect(by["matches"]!.reason).toContain("does not match");
      expect(by["schema"]).toMatchObject({ status: "fail" });
      expect(by["schema"]!.reason).toContain("must match pattern");
      expect(by["holds"]).toMatchObject({ status: "pass" });
      expect(r.code, r.stderr).toBe(0); // 1 of 3 passed, pass.rate 0.3
    });

    it("spell eval: a pattern RE2 cannot take is refused when the document loads, at file:line:col", () => {
      const dir = mkdtempSync(join(tmpdir(), "linear-eval-"));
      writeFileSync(join(dir, "echo.yaml"), ECHO);
      writeFileSync(
        join(dir, "eval.yaml"),
        `kind: eval\nname: p\nspells: [./echo.yaml]\ncases:\n  - { name: look, intent: say, expect: [{ result_matches: "(?=a)a" }] }\n  - { name: back, intent: say, expect: [{ result_schema: { pattern: "(a)\\\\1" } }] }\n`,
      );
      const r = bounded([join(root, "bin/run.js"), "eval", "eval.yaml", "--out", "out"], dir);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /eval\.yaml:5:\d+: .*result_matches: \/\(\?=a\)a\/ is not RE2 syntax/,
      );
      expect(r.stderr).toMatch(/eval\.yaml:6:\d+: .*result_schema: .*is not RE2 syntax/);
      expect(existsSync(join(dir, "out/results.jsonl"))).toBe(false);
    });

    it("spell test: a conformance case's result_matches and result_schema", () => {
      const dir = mkdtempSync(join(tmpdir(), "linear-test-"));
      const setup = `  setup:
    llm: { responses: [{ tool_calls: [{ gate: done, args: { answer: "${ANSWER}" } }] }] }
    circle: { gates: [done], wards: [{ max_turns: 2 }] }
  action: { cast: { intent: say } }`;
      writeFileSync(
        join(dir, "tests.yaml"),
        `- rule: P-1\n  name: matches\n${setup}\n  expect: { result_matches: '${EVIL}' }\n` +
          `- rule: P-2\n  name: schema\n${setup}\n  expect: { result_schema: { type: string, pattern: '${EVIL}' } }\n` +
          `- rule: P-3\n  name: holds\n${setup}\n  expect: { result_matches: '^a+!$' }\n`,
      );
      const r = bounded([join(root, "bin/run.js"), "test", "tests.yaml"], dir);
      expect(r.signal, `spell test held past ${BOUND_MS} ms`).toBeNull();
      const out = r.stdout + r.stderr;
      expect(out).toContain("does not match");
      expect(out).toContain("must match pattern");
      expect(out).toMatch(/1 passed/);
      expect(r.code).toBe(1);
    });

    it("inputs: a caller's value against the spell's pattern is a bad_input, at once", () => {
      const spell = `llm: { provider: scripted, responses: [{ content: ok }] }
identity: {}
inputs: { type: object, properties: { word: { type: string, pattern: '${EVIL}' } }, required: [word] }
intent: "Say {{word}}."
circle: { gates: [done], wards: [{ max_turns: 1 }] }
`;
      const out = inChild(`import { castSpell, loadSpellText } from "DIST/index.js";
const SPELL = ${JSON.stringify(spell)};
const loaded = await loadSpellText(SPELL, "s.yaml", { loomPath: "memory" });
const err = await castSpell(loaded, { inputs: { word: "${ANSWER}" } }).catch((e) => e);
console.log(JSON.stringify({ code: err.code, message: err.message }));
`);
      expect(out).toEqual({
        code: "bad_input",
        message: `input word: must match pattern "${EVIL}"`,
      });
    });

    it("output_schema: a model's answer against the spell's pattern is an error observation, at once", () => {
      const spell = `llm: { provider: scripted, responses: [
  { tool_calls: [{ gate: done, args: { answer: "${ANSWER}" } }] },
  { tool_calls: [{ gate: done, args: { answer: "fine words" } }] }] }
identity: {}
output_schema: { type: string, pattern: '${EVIL}' }
circle: { gates: [done], wards: [{ max_turns: 3 }] }
`;
      const out = inChild(`import { castSpell, loadSpellText } from "DIST/index.js";
const SPELL = ${JSON.stringify(spell)};
const loaded = await loadSpellText(SPELL, "s.yaml", { loomPath: "memory" });
const r = await castSpell(loaded, { intent: "say" });
const first = loaded.cantrip.loom.turns()[0].observation;
console.log(JSON.stringify({ result: r.result, first: JSON.stringify(first) }));
`);
      expect(out["result"]).toBe("fine words");
      expect(out["first"]).toContain("must match pattern");
    });

    it("an MCP server's output schema: its pattern checks the tool's structured result at once", () => {
      const server = resolve(root, "tests/security/fixtures/pattern-mcp-server.mjs");
      const out = inChild(`import { loadSpellText } from "DIST/index.js";
const SPELL = \`llm: { provider: scripted, responses: [
  { tool_calls: [{ gate: pat_word, args: {} }] },
  { tool_calls: [{ gate: done, args: { answer: over } }] }] }
identity: {}
circle:
  gates: [done, { mcp: { name: pat, command: "${process.execPath}", args: ["${server}"], tools: [word] } }]
  wards: [{ max_turns: 3 }]
\`;
const loaded = await loadSpellText(SPELL, "${join(root, "s.yaml")}", { loomPath: "memory" });
const r = await loaded.cantrip.cast("say");
const first = loaded.cantrip.loom.turns()[0].observation;
await loaded.dispose?.();
console.log(JSON.stringify({ result: r.result, first: JSON.stringify(first) }));
process.exit(0);
`);
      expect(out["result"]).toBe("over");
      expect(out["first"]).toMatch(/does not match|must match pattern/);
    });

    it("search: a .gitignore's glob of many stars (data a model may write) ends at once", () => {
      const root = mkdtempSync(join(tmpdir(), "linear-search-"));
      writeFileSync(join(root, ".gitignore"), "*a*a*a*a*a*a*a*a*a*a*a*a*b\n*.skip\n");
      writeFileSync(join(root, `${"a".repeat(60)}c.txt`), "needle here\n");
      writeFileSync(join(root, "other.skip"), "needle skipped\n");
      const out = inChild(`import { searchGate } from "DIST/circle/gates/index.js";
const ctx = { entityId: "e", turnId: "t", signal: new AbortController().signal, depth: 0 };
const found = await searchGate({ root: ${JSON.stringify(root)} }).execute({ pattern: "needle" }, ctx);
console.log(JSON.stringify({ found }));
`);
      expect(out["found"]).toBe(`${"a".repeat(60)}c.txt:1: needle here`);
    });

    it("a flow receiver reads a model's answer of a megabyte of spaces at once (no pattern backtracks over it)", () => {
      const out = inChild(`import { eventOf } from "DIST/flows/cast-handlers.js";
const spaces = " ".repeat(1 << 20);
const a = eventOf("stay ok" + spaces + "!");
console.log(JSON.stringify({ a: { ...a, trigger: a.trigger.length }, b: eventOf("move" + spaces) }));
`);
      expect(out["a"]).toEqual({ action: "STAY", trigger: 3 + (1 << 20) }); // "ok", the spaces, "!"
      expect(out["b"]).toEqual({ action: "MOVE", trigger: null });
    });
  },
);

// What the engine takes: RE2 syntax plus JavaScript's \u escapes; lookaround and backreferences
// are refused, saying why (none of these backtracks, so they run in this process).
describe("the linear engine (core/linear-pattern.ts)", () => {
  it("matches anywhere as JavaScript's test() does, reads \\uXXXX, refuses what RE2 cannot take", async () => {
    const { linearPattern } = await import("../../src/core/linear-pattern.js");
    expect(linearPattern("\\d+").test("the answer is 42")).toBe(true);
    expect(linearPattern("^\\d+$").test("the answer is 42")).toBe(false);
    expect(linearPattern("^caf\\u00e9$").test("café")).toBe(true);
    expect(linearPattern("^\\u{1F600}$").test("😀")).toBe(true);
    expect(linearPattern("^\\\\u00e9$").test("\\u00e9")).toBe(true); // an escaped backslash
    expect(() => linearPattern("(?=a)a")).toThrow(/\/\(\?=a\)a\/ is not RE2 syntax.*lookaround/);
    expect(() => linearPattern("(a)\\1")).toThrow(/is not RE2 syntax/);
  });

  it("result_schema: pattern and patternProperties are RE2's, each pattern its own", async () => {
    const { resultChecks } = await import("../../src/conformance/check-result.js");
    const last = (result: unknown) => () => ({ result }) as never;
    const schema = (pattern: string) => ({ type: "string", pattern });
    expect(resultChecks.result_schema(schema("^a+!$"), last("aaa!"))).toBeNull();
    expect(resultChecks.result_schema(schema("^b"), last("aaa!"))).toMatch(/must match/);
    const props = { type: "object", patternProperties: { "^x": { type: "number" } } };
    expect(resultChecks.result_schema(props, last('{"x1": 1}'))).toBeNull();
    expect(resultChecks.result_schema(props, last('{"x1": "no"}'))).toMatch(/must be number/);
    expect(() => resultChecks.result_schema(schema("(?!a)"), last("b"))).toThrow(/RE2 syntax/);
    expect(() => resultChecks.result_matches("(?<=a)b", last("ab"))).toThrow(/RE2 syntax/);
  });
});

describe("a .gitignore's patterns (circle/gates/gitignore.ts, git's rules on RE2)", () => {
  it("anchors, folders only, **, classes, escapes, !, and a folder's content", async () => {
    const { GitIgnore } = await import("../../src/circle/gates/gitignore.js");
    const says = (text: string, path: string, isDir = false) => {
      const v = new GitIgnore(text).test(path, isDir);
      return v.ignored ? "ignored" : v.unignored ? "unignored" : "-";
    };
    expect(says("*.log", "x/a.log")).toBe("ignored");
    expect(says("/build", "src/build", true)).toBe("-");
    expect(says("/build", "build", true)).toBe("ignored");
    expect(says("build/", "build")).toBe("-"); // a file: the pattern names folders
    expect(says("build/", "src/build/x.js")).toBe("ignored"); // inside an ignored folder
    expect(says("a/**/b", "a/x/y/b")).toBe("ignored");
    expect(says("a/**/b", "a/b")).toBe("ignored");
    expect(says("**/foo", "p/q/foo")).toBe("ignored");
    expect(says("abc/**", "abc/x/y")).toBe("ignored");
    expect(says("doc/*.txt", "doc/x/a.txt")).toBe("-"); // * stops at /
    expect(says("[!x]y", "ay")).toBe("ignored"); // git's negated class
    expect(says("[!x]y", "xy")).toBe("-");
    expect(says("*.[oa]", "lib.a")).toBe("ignored");
    expect(says("\\#hash", "#hash")).toBe("ignored");
    expect(says("# comment", "# comment")).toBe("-");
    expect(says("trail   ", "trail")).toBe("ignored");
    expect(says("*.log\n!keep.log", "keep.log")).toBe("unignored");
    expect(says("dir/\n!dir/keep", "dir/keep")).toBe("ignored"); // no re-include below it
    expect(says("a.b", "axb")).toBe("-"); // a dot is a dot
  });
});
