import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { NOT_PLAIN, plainYaml } from "../../src/spell/plain-yaml.js";
import { renameOldWords, type Warning } from "../../src/spell/rewrite.js";
import { SpellSource } from "../../src/spell/source.js";

// src/spell/plain-yaml.ts reads the plainest YAML without the `yaml` library. What it reads must
// be what the library reads, and the library must find no error or warning in it; what it does
// not read (NOT_PLAIN) goes to the library as before.

const root = join(import.meta.dirname, "..", "..");
const repoYaml = execFileSync("git", ["ls-files", "*.yaml", "*.yml"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter(Boolean)
  .map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));

/** The library's reading, as SpellSource parses and converts. */
function library(text: string): { problems: number; value: unknown } {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  const problems = doc.errors.length + doc.warnings.length;
  return { problems, value: problems ? undefined : doc.toJS({ maxAliasCount: 100 }) };
}

/** Plain, and read as the library reads it. */
function expectSame(text: string): void {
  const plain = plainYaml(text);
  expect(plain, text).not.toBe(NOT_PLAIN);
  const lib = library(text);
  expect(lib.problems, text).toBe(0);
  expect(plain, text).toStrictEqual(lib.value);
}

describe("plainYaml", () => {
  it("reads the bench's spell (grimoire/04-cantrip.yaml) as the library does", () => {
    expectSame(readFileSync(join(root, "grimoire", "04-cantrip.yaml"), "utf8"));
  });

  it("reads every plain YAML file of the repository as the library does", () => {
    let plain = 0;
    for (const { text } of repoYaml) {
      if (plainYaml(text) === NOT_PLAIN) continue;
      plain++;
      expectSame(text);
    }
    expect(plain).toBeGreaterThan(0);
  });

  it.each([
    ["null words", "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nULL\n"],
    ["booleans", "a: true\nb: True\nc: TRUE\nd: false\ne: False\nf: FALSE\ng: tRUE\nh: yes\n"],
    [
      "integers",
      "a: 0\nb: -12\nc: +5\nd: 007\ne: 0o17\nf: 0x1F\ng: 0o8\nh: 123456789012345678901\n",
    ],
    [
      "floats",
      "a: 1.5\nb: .5\nc: 1.\nd: 1e3\ne: -2.5E-3\nf: .inf\ng: -.Inf\nh: +.INF\ni: .nan\nj: .NaN\nk: 1.0\n",
    ],
    [
      "strings that look like others",
      "a: 1_000\nb: 0b11\nc: 12:30\nd: 1.2.3\ne: -\u00e9\nf: v1\ng: ..\n",
    ],
    [
      "signs and dots alone",
      "a: +\nb: .\nc: -1x\nd: +.5\ne: 1e\nf: 0o\ng: 0x\nh: +-1\ni: -.inf\nj: +0\n",
    ],
    [
      "quoted strings",
      `a: "x # y: z"\nb: 'it''s'\nc: ""\nd: ''\ne: "5"  # a comment\nf: '{a: 1}'\n`,
    ],
    ["comments", "# head\na: 1 # tail\n  # deeper\nb:   # empty\n  - x # one\n# end\n"],
    ["plain with inner indicators", "a: b#c\nb: x, y [z] {w}\nc: :d\nd: -e\ne: ?f\nf: a :b\n"],
    ["a compact sequence in a mapping", "a:\n- 1\n- 2\nb: 3\n"],
    [
      "a sequence of mappings",
      "s:\n  - a: 1\n    b:\n      - x\n  - c: 2\n  -\n  - - p\n    - q\n",
    ],
    ["a compact sequence in an item's mapping", "s:\n  - a:\n    - 1\n    b: 2\n"],
    ["deeper nesting", "a:\n    b:\n          c: 1\n    d: 2\ne: {}\n"],
    ["flow collections", "a: { b: 1, c: [x, \"y\", 'z', { d: ~ }] }\nb: []\nc: [ ]\nd: [a b, c]\n"],
    ["keys the prototype has", "__proto__: 1\nconstructor: 2\ntoString: { valueOf: 3 }\n"],
    ["keys with dots, slashes and dashes", "a.b: 1\nc/d: 2\ne-f: 3\n$schema: x\n_x: 4\n"],
    ["text beyond ASCII", 'a: caf\u00e9 \u65e5\u672c\nb: "\u00a0"\n'],
    ["trailing spaces and blank lines", "a: 1   \n\n   \nb:    x y   \n"],
  ])("reads %s as the library does", (_name, text) => {
    expectSame(text);
  });

  it.each([
    ["a literal block scalar", "a: |\n  x\n"],
    ["a folded block scalar", "a: >\n  x\n"],
    ["a plain scalar over two lines", "a: x\n  y\n"],
    ["a quoted scalar over two lines", 'a: "x\n  y"\n'],
    ["a flow over two lines", "a: [x,\n  y]\n"],
    ["an anchor and an alias", "a: &x 1\nb: *x\n"],
    ["a tag", "a: !!str 1\n"],
    ["a tab", "a:\t1\n"],
    ["a carriage return", "a: 1\r\nb: 2\r\n"],
    ["an escape", 'a: "\\u0041"\n'],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["a duplicate key in a flow mapping", "a: { b: 1, b: 2 }\n"],
    ["a document marker", "---\na: 1\n"],
    ["a document end", "a: 1\n...\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a key with a space", "a b: 1\n"],
    ["a quoted key", '"a": 1\n'],
    ["a key the schema makes null", "null: 1\n"],
    ["a key the schema makes a boolean", "true: 1\n"],
    ["a merge key", "<<: { a: 1 }\n"],
    ["a mapping in a mapping's value", "a: b: c\n"],
    ["a sequence in a mapping's value", "a: - x\n"],
    ["a trailing comma", "a: [x, y, ]\n"],
    ["an empty flow entry", "a: [x, , y]\n"],
    ["a plain flow key without a space", "a: {b:c}\n"],
    ["a flow key without a value", "a: { b }\n"],
    ["a sibling deeper than the first", "a: 1\n  b: 2\n"],
    ["an indentation between levels", "a:\n    b: 1\n  c: 2\n"],
    ["a sequence item at a mapping's indent after a value", "a: 1\n- x\n"],
    ["a root that is a sequence", "- a\n- b\n"],
    ["a root that is a scalar", "hello\n"],
    ["an indented root", "  a: 1\n"],
    ["an empty text", "# only a comment\n"],
    ["a byte order mark", "\ufeffa: 1\n"],
    ["a control character", "a: \u0007\n"],
    ["an explicit key", "? a\n: 1\n"],
    ["a block value after an inline value", "a: x\n  - y\n"],
    ["something after a flow", "a: [x] y\n"],
    ["a quoted scalar followed by text", 'a: "x" y\n'],
  ])("leaves %s to the library", (_name, text) => {
    expect(plainYaml(text)).toBe(NOT_PLAIN);
  });

  it("agrees with the library on thousands of mutations of the repository's YAML", () => {
    // Each mutation inserts, deletes or replaces a few characters among those YAML gives a
    // meaning to; whatever is still plain must be read as the library reads it.
    const pieces = [
      " ",
      "  ",
      ":",
      ": ",
      "-",
      "- ",
      "#",
      " #",
      "'",
      '"',
      "{",
      "}",
      "[",
      "]",
      ",",
      "\n",
      "\n  ",
      "\n- ",
      "a",
      "1",
      ".",
      "0x1",
      "true",
      "~",
      "?",
      "|",
      "&a",
      "*a",
      "!t",
    ];
    let seed = 40;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    let plain = 0;
    for (let n = 0; n < 6000; n++) {
      let text = pick(repoYaml).text;
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        const at = Math.floor(random() * text.length);
        const r = random();
        if (r < 0.4) text = text.slice(0, at) + pick(pieces) + text.slice(at);
        else if (r < 0.8) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 3));
        else text = text.slice(0, at) + pick(pieces) + text.slice(at + 1);
      }
      if (plainYaml(text) === NOT_PLAIN) continue;
      plain++;
      expectSame(text);
    }
    expect(plain).toBeGreaterThan(500);
  });
});

describe("SpellSource of a plain spell", () => {
  const text =
    "kind: cantrip\nname: x\ncircle:\n  gates: [done, echo]\n  wards:\n    - max_turns: 5\n";

  it("gives the library's value and positions, the document parsed when a position is asked", () => {
    const plain = new SpellSource("s.yaml", text);
    expect(plain.syntaxErrors()).toEqual([]);
    expect(plain.toJS()).toStrictEqual(library(text).value);
    expect(plain.position(["circle", "wards", 0, "max_turns"])).toEqual({
      file: "s.yaml",
      line: 6,
      col: 18,
    });
    expect(plain.position(["circle", "gates"], { key: true })).toEqual({
      file: "s.yaml",
      line: 4,
      col: 3,
    });
    // A second value is a new one, as the library makes one a call.
    const again = plain.toJS();
    expect(again).toStrictEqual(library(text).value);
    expect(again).not.toBe(plain.toJS());
  });

  it("renames old words on the document, with their positions", () => {
    const old =
      "kind: cantrip\ncrystal: { provider: scripted }\ncircle:\n  gates: [call_agent, done]\n";
    const source = new SpellSource("s.yaml", old);
    const warnings: Warning[] = [];
    renameOldWords(source, warnings);
    expect(source.toJS()).toStrictEqual({
      kind: "cantrip",
      llm: { provider: "scripted" },
      circle: { gates: ["call_entity", "done"] },
    });
    expect(warnings.map((w) => w.position)).toEqual([
      { file: "s.yaml", line: 2, col: 1 },
      { file: "s.yaml", line: 4, col: 11 },
    ]);
  });

  it("takes its value from the document once the document is asked for", () => {
    const source = new SpellSource("s.yaml", "a: 1\n");
    source.doc.set("a", 2);
    expect(source.toJS()).toStrictEqual({ a: 2 });
  });
});
