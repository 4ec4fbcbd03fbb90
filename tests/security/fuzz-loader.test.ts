import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SpellbookError } from "../../src/core/errors.js";
import { loadDocumentText } from "../../src/spell/index.js";

/**
 * A seeded fuzzer over the grimoire and spells/: each case is a real spell mutated at random
 * (bytes, lines, keys, values, types, YAML syntax), loaded through the whole loader (parse,
 * rewrite, validate, resolve, compile). Any outcome is fine but one: an exception that is not a
 * SpellbookError (a crash of the loader instead of a message at file:line:col).
 */
const CASES = 2400;
const SEED = 0x5eed;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUES = [
  "null",
  "~",
  "[]",
  "{}",
  "-1",
  "0",
  "1e309",
  "0x10",
  ".nan",
  "-.inf",
  "true",
  "''",
  '""',
  "__proto__",
  "constructor",
  "toString",
  "'${env:HOME}'",
  "'${env:}'",
  "'${env:constructor}'",
  "*a",
  "&a x",
  "!!binary aGk=",
  "!!js/function x",
  "{ $file: ../../../etc/passwd }",
  "{ $file: nowhere.json }",
  "[[[[[[[[[[]]]]]]]]]]",
  "'\\u0000'",
  '"\\ud800"',
  "{ __proto__: { polluted: 1 } }",
  "[done, done]",
  "{ max_turns: -5 }",
  "9007199254740993",
  "'x'",
  "|\n  block",
  ">-\n  folded",
  "? complex\n: key",
];
const KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "llm",
  "identity",
  "circle",
  "gates",
  "wards",
  "medium",
  "kind",
  "tests",
  "loom",
  "state",
  "intent",
  "responses",
  "tool_calls",
  "args",
  "max_memory_mb",
  "max_eval_ms",
  "path",
  "<<",
  "? x",
  "'${env:HOME}'",
];

type Mutation = (lines: string[], pick: <T>(xs: readonly T[]) => T, r: () => number) => void;

const MUTATIONS: Mutation[] = [
  (l, pick) => void l.splice(l.indexOf(pick(l)), 1), // drop a line
  (l, pick) => void l.splice(l.indexOf(pick(l)), 0, pick(l)), // duplicate a line
  (l, pick, r) => {
    const i = Math.floor(r() * l.length);
    const line = l[i] ?? "";
    const colon = line.indexOf(": ");
    if (colon > 0) l[i] = `${line.slice(0, colon + 2)}${pick(VALUES)}`;
  },
  (l, pick, r) => {
    const i = Math.floor(r() * l.length);
    const line = l[i] ?? "";
    const indent = /^\s*(- )?/.exec(line)![0];
    l.splice(i, 0, `${indent.replace("- ", "  ")}${pick(KEYS)}: ${pick(VALUES)}`);
  },
  (l, _pick, r) => {
    const i = Math.floor(r() * l.length);
    const line = l[i] ?? "";
    const at = Math.floor(r() * (line.length + 1));
    const junk = [
      "\t",
      ":",
      "-",
      "{",
      "}",
      "[",
      "]",
      "'",
      '"',
      "&",
      "*",
      "!",
      "#",
      "%",
      "@",
      "`",
      "\\",
      "\u0000",
      "\ufeff",
    ];
    l[i] = line.slice(0, at) + junk[Math.floor(r() * junk.length)] + line.slice(at + 1);
  },
  (l, _pick, r) => {
    const i = Math.floor(r() * l.length);
    l[i] = (l[i] ?? "").replace(/^(\s*)/, (m) => (r() < 0.5 ? m + " " : m.slice(1)));
  },
  (l, _pick, r) => void (l.length = Math.floor(r() * l.length)), // cut the file short
  (l, pick) => {
    const a = l.indexOf(pick(l));
    const b = l.indexOf(pick(l));
    [l[a], l[b]] = [l[b]!, l[a]!];
  },
];

const corpus = ["grimoire", "spells"].flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(dir, f), "utf8") })),
);

describe("the loader under a seeded fuzzer (grimoire and spells/)", () => {
  it(`${CASES} mutated spells: no exception that is not a SpellbookError`, async () => {
    const r = rng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const crashes: string[] = [];
    let rejected = 0;
    for (let n = 0; n < CASES; n++) {
      const { file, text } = corpus[n % corpus.length]!;
      const lines = text.split("\n");
      const times = 1 + Math.floor(r() * 3);
      for (let m = 0; m < times; m++) pick(MUTATIONS)(lines, pick, r);
      const mutated = lines.join("\n");
      try {
        // Half the cases go through compile too (a memory loom: nothing is written).
        await loadDocumentText(mutated, file, {
          env: { HOME: "/home/x" },
          ...(n % 2 ? { validateOnly: true } : { loomPath: "memory" }),
        });
      } catch (err) {
        rejected++;
        if (!(err instanceof SpellbookError))
          crashes.push(`case ${n} (${file}): ${String(err)}\n${mutated}`);
      }
    }
    expect(crashes.slice(0, 3)).toEqual([]);
    expect(crashes).toHaveLength(0);
    // The mutations do reach the validator: most cases are refused with a message.
    expect(rejected).toBeGreaterThan(CASES / 2);
    expect(rejected).toBeLessThan(CASES);
  }, 600_000); // ~15 s of CPU; at a load of 30 on 2 cores it passed 120 s
});
