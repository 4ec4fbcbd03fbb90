import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { testCommand } from "../../src/cli/test.js";
import { validateCommand } from "../../src/cli/validate.js";
import { io } from "../support/io.js";

/** Every command the bundle registers, in order. */
const COMMANDS = [
  "acp",
  "council",
  "eval",
  "familiar",
  "run",
  "serve",
  "summon",
  "test",
  "validate",
  "view",
  "loom:export",
  "loom:tree",
  "loom:stats",
  "loom:reward",
  "loom:thread",
  "loom:fork",
  "loom:view",
  "loom:otel",
  "loom:import",
  "flow",
  "dna",
  "dna:verify",
  "mcp",
  "worker",
  "push",
  "pull",
  "inspect",
  "lock",
  "login",
];

const dir = mkdtempSync(join(tmpdir(), "cli-test-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("spell run", () => {
  it("runs the quickstart spell offline: progress on stderr, result on stdout, exit 0", async () => {
    const o = io();
    const loom = join(dir, "run.jsonl");
    expect(await runCommand("grimoire/04-cantrip.yaml", { loom }, o)).toBe(EXIT.ok);
    expect(o.out).toBe("5\n");
    expect(o.err).toMatch(/turn 1 · echo · 53 tokens \(42 in, 11 out\)/);
    expect(o.err).toMatch(/terminated \(done\) after 2 turns · 120 tokens/);
    expect(
      readFileSync(loom, "utf8")
        .split("\n")
        .filter((l) => l.includes('"type":"turn"')),
    ).toHaveLength(2);
  });

  it("--json prints only the result object", async () => {
    const o = io();
    expect(await runCommand("grimoire/04-cantrip.yaml", { json: true, loom: "memory" }, o)).toBe(
      EXIT.ok,
    );
    expect(JSON.parse(o.out)).toMatchObject({
      result: "5",
      terminated: true,
      reason: "done",
      turns: 2,
    });
    expect(o.err).toBe("");
  });

  it("exits 2 when a ward truncates", async () => {
    const spell = write(
      "trunc.yaml",
      `llm: { provider: scripted, responses: [{ tool_calls: [{ gate: echo, args: { text: a } }] }] }
identity: {}
circle: { gates: [done, echo], wards: [{ max_turns: 1 }] }
intent: loop
`,
    );
    const o = io();
    expect(await runCommand(spell, { loom: "memory" }, o)).toBe(EXIT.truncated);
    expect(o.err).toMatch(/truncated \(max_turns\) after 1 turn/);
  });

  it("exits 3 for an invalid spell, with file:line:col", async () => {
    const o = io();
    const spell = write(
      "bad.yaml",
      "llm: scripted\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }], medum: x }\n",
    );
    expect(await runCommand(spell, { loom: "memory" }, o)).toBe(EXIT.invalid);
    expect(o.err).toMatch(/bad\.yaml:3:53: circle\.medum: unknown key; did you mean "medium"\?/);
  });

  it("exits 4 when the run fails and says the loom kept what was recorded", async () => {
    const spell = write(
      "fail.yaml",
      `llm: { provider: scripted, responses: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { error: { status: 500, message: upstream down } }] }
identity: {}
circle: { gates: [done, echo], wards: [{ max_turns: 3 }] }
intent: go
`,
    );
    const o = io();
    expect(await runCommand(spell, { loom: "memory" }, o)).toBe(EXIT.failure);
    expect(o.err).toMatch(/spell run failed: upstream down/);
  });
});

describe("spell run and the loom file", () => {
  it("refuses a --loom path that is not a loom, before any query, and leaves it untouched", async () => {
    const notes = write("notes.md", "# notes\n");
    const o = io();
    expect(await runCommand("grimoire/04-cantrip.yaml", { loom: notes }, o)).toBe(EXIT.invalid);
    expect(o.err).toContain(`${notes} is not a loom file`);
    expect(readFileSync(notes, "utf8")).toBe("# notes\n");
  });

  it("never prints a secret in the loom's path", async () => {
    const spell = write(
      "secret-loom.yaml",
      `llm: { provider: scripted, responses: [{ error: { status: 500, message: down } }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 2 }] }
loom: { path: "./looms/\${env:LOOM_TOKEN}.jsonl" }
intent: go
`,
    );
    const o = io();
    o.env = { LOOM_TOKEN: "tok-secret-9876" };
    expect(await runCommand(spell, {}, o)).toBe(EXIT.failure);
    expect(o.err).toContain("the loom keeps every turn recorded before the failure");
    expect(o.err).not.toContain("tok-secret-9876");
  });
});

describe("spell validate", () => {
  it("prints all three mistakes of a file with line and column", async () => {
    const spell = write(
      "three.yaml",
      `llm: { provider: scripted }
identity: { system_prompt: hi, temprature: 0.2 }
circle:
  gates: [done, ech]
  wards: [{ max_turns: -1 }]
`,
    );
    const o = io();
    expect(await validateCommand([spell], o)).toBe(EXIT.invalid);
    const lines = o.err.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => /three\.yaml:(\d+:\d+):/.exec(l)?.[1])).toEqual([
      "2:32",
      "4:17",
      "5:24",
    ]);
    expect(o.out).toMatch(/three\.yaml: 3 errors/);
  });

  it("accepts every spell in spells/ and grimoire/", async () => {
    const o = io();
    const files = ["spells", "grimoire"].flatMap((d) =>
      execFileSync("ls", [d])
        .toString()
        .trim()
        .split("\n")
        .filter((f) => f.endsWith(".yaml"))
        .map((f) => `${d}/${f}`),
    );
    expect(await validateCommand(files, o)).toBe(EXIT.ok);
  });
});

describe("spell test", () => {
  it("runs a suite and reports per case, in JSON on request", async () => {
    const suite = write(
      "suite.yaml",
      `- rule: LOOP-6
  name: text terminates
  setup: { llm: { responses: [{ content: hi }] }, circle: { gates: [done], wards: [{ max_turns: 1 }] } }
  action: { cast: { intent: go } }
  expect: { result: hi }
- rule: LOOP-6
  name: wrong on purpose
  setup: { llm: { responses: [{ content: hi }] }, circle: { gates: [done], wards: [{ max_turns: 1 }] } }
  action: { cast: { intent: go } }
  expect: { result: bye }
`,
    );
    const o = io();
    expect(await testCommand([suite], { reporter: "json" }, o)).toBe(EXIT.failed);
    const report = JSON.parse(o.out) as {
      passed: number;
      failed: number;
      cases: { rule: string; name: string; status: string; message: string }[];
    };
    expect(report.passed).toBe(1);
    expect(report.failed).toBe(1);
    expect(report.cases[1]).toMatchObject({
      rule: "LOOP-6",
      name: "wrong on purpose",
      status: "fail",
      message: 'result: expected "bye", got "hi"',
    });
  });
});

describe("spell test on a folder", () => {
  it("runs the tests of every spell in it", async () => {
    const o = io();
    expect(await testCommand(["grimoire"], { reporter: "json" }, o)).toBe(EXIT.ok);
    const report = JSON.parse(o.out) as { passed: number; failed: number; broken_files: number };
    expect(report.failed).toBe(0);
    expect(report.broken_files).toBe(0);
    expect(report.passed).toBeGreaterThan(10);
  });
});

/**
 * Loads the bundle through a bin/load.js in a child process: was its cache used, what commands,
 * and whether node:zlib loaded. `before`: code run first (to take process.binding away);
 * `nodeArgs`, `env`: how Node is started.
 */
function loadBundleIn(
  loadJs: string,
  how: { before?: string; nodeArgs?: string[]; env?: NodeJS.ProcessEnv; bundle?: string } = {},
) {
  const bundle = JSON.stringify(how.bundle ?? "spell.cjs");
  const r = spawnSync(
    process.execPath,
    [
      ...(how.nodeArgs ?? []),
      "--input-type=module",
      "-e",
      `${how.before ?? ""}; const { loadBundle } = await import(${JSON.stringify(loadJs)}); const b = loadBundle({ bundle: ${bundle} }); console.log(JSON.stringify({ rejected: b.cacheRejected, commands: Object.keys(b.exports.COMMANDS ?? {}), zlib: process.moduleLoadList.includes("NativeModule zlib") }));`,
    ],
    { encoding: "utf8", env: how.env ?? process.env },
  );
  expect(r.stderr).toBe("");
  const loaded = JSON.parse(r.stdout) as { rejected: boolean; commands: string[]; zlib: boolean };
  return { rejected: loaded.rejected, commands: loaded.commands, zlib: loaded.zlib };
}

/** The environment without Node's own settings (the test runner's may hold some). */
function nodeEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!("NODE_OPTIONS" in extra)) delete env["NODE_OPTIONS"];
  if (!("NODE_PENDING_DEPRECATION" in extra)) delete env["NODE_PENDING_DEPRECATION"];
  return env;
}

/**
 * The ways Node may be started around bin/load.js: zlib's CRC-32 through process.binding, or
 * node:zlib where process.binding would warn (--pending-deprecation) or is not there.
 */
const CRC_PATHS: { name: string; zlib: boolean; how: Parameters<typeof loadBundleIn>[1] }[] = [
  { name: "process.binding", zlib: false, how: { env: nodeEnv() } },
  {
    name: "--pending-deprecation",
    zlib: true,
    how: { nodeArgs: ["--pending-deprecation"], env: nodeEnv() },
  },
  {
    name: "NODE_OPTIONS=--pending-deprecation",
    zlib: true,
    how: { env: nodeEnv({ NODE_OPTIONS: "--pending-deprecation" }) },
  },
  {
    name: "NODE_PENDING_DEPRECATION=1",
    zlib: true,
    how: { env: nodeEnv({ NODE_PENDING_DEPRECATION: "1" }) },
  },
  {
    name: "no process.binding",
    zlib: true,
    how: { before: "process.binding = undefined", env: nodeEnv() },
  },
  {
    name: "a process.binding that throws",
    zlib: true,
    how: {
      before: 'process.binding = function binding() { throw new Error("gone") }',
      env: nodeEnv(),
    },
  },
  {
    name: "a zlib binding without crc32",
    zlib: true,
    how: { before: "process.binding = function binding() { return {} }", env: nodeEnv() },
  },
];

describe("the bin", () => {
  /** `spell ARGV` with hooks that report every ES module resolved and CommonJS module required. */
  const traced = (argv: string[], env: NodeJS.ProcessEnv = process.env) => {
    const r = spawnSync(
      process.execPath,
      [
        "--no-warnings",
        "--loader",
        "./tests/cli/trace-loader.mjs",
        "--require",
        "./tests/cli/trace-require.cjs",
        "bin/run.js",
        ...argv,
      ],
      { encoding: "utf8", env },
    );
    return {
      stdout: r.stdout,
      loaded: r.stderr.split("\n").filter((l) => l.startsWith("LOADED ")),
    };
  };
  const heavy =
    /openai|@anthropic-ai|@opentelemetry|quickjs|sandbox-worker|agentclientprotocol|fastify|bullmq|ioredis|^LOADED (ink|react|marked)$|tui\.mjs/;

  it("spell --help is printed from the start-up pages: no bundle loads", () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(OCLIF_|SPELL_|FORCE_COLOR$|DEBUG$)/.test(k)),
    );
    const { stdout, loaded } = traced(["--help"], env);
    expect(stdout).toMatch(/USAGE/);
    expect(loaded.filter((l) => /dist\/.*\.cjs$|@oclif/.test(l) || heavy.test(l))).toEqual([
      expect.stringMatching(/dist\/start\.cjs$/) as unknown,
    ]);
  });

  it("oclif's help loads no provider SDK or sandbox", () => {
    const { stdout, loaded } = traced(["--help"], { ...process.env, SPELLBOOK_FAST_START: "0" });
    expect(stdout).toMatch(/USAGE/);
    // The hooks work: the bundled CLI is seen. yaml, ajv and oclif are inside that bundle.
    expect(loaded.some((l) => l.endsWith("dist/spell.cjs"))).toBe(true);
    expect(loaded.filter((l) => heavy.test(l))).toEqual([]);
  });

  it("spell run and a piped spell summon load no terminal UI (Ink, React, marked)", () => {
    const ui = /^LOADED (ink|react|marked)$|tui\.mjs/;
    const run = traced(["run", "grimoire/04-cantrip.yaml", "--loom", "memory", "--quiet"]);
    expect(run.loaded.length).toBeGreaterThan(0);
    expect(run.loaded.filter((l) => ui.test(l))).toEqual([]);
    // stdin is no terminal here: line mode, which the input's end closes at once.
    const summon = traced(["summon", "grimoire/04-cantrip.yaml", "--loom", "memory", "--quiet"]);
    expect(summon.loaded.some((l) => l.endsWith("dist/spell.cjs"))).toBe(true);
    expect(summon.loaded.filter((l) => ui.test(l))).toEqual([]);
  });

  it("spell run requires re2js from node_modules for a pattern, and a spell without one never", () => {
    const plain = traced(["run", "grimoire/04-cantrip.yaml", "--loom", "memory", "--quiet"]);
    expect(plain.stdout.trim()).toBe("5");
    expect(plain.loaded.some((l) => l.endsWith("dist/run.cjs"))).toBe(true);
    expect(plain.loaded.filter((l) => /re2js/.test(l) || heavy.test(l))).toEqual([]);
    const spell = write(
      "patterned.yaml",
      [
        "llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: ok } }] }] }",
        "identity: { system_prompt: say it }",
        "inputs: { type: object, properties: { word: { type: string, pattern: '^[a-z]+$' } }, required: [word] }",
        "intent: 'say {{word}}'",
        "circle: { gates: [done], wards: [{ max_turns: 2 }] }",
      ].join("\n"),
    );
    const good = traced(["run", spell, "--loom", "memory", "--quiet", "--input", "word=fine"]);
    expect(good.stdout.trim()).toBe("ok");
    expect(good.loaded).toContain("LOADED re2js");
    const bad = spawnSync(
      process.execPath,
      ["bin/run.js", "run", spell, "--loom", "memory", "--input", "word=NOT a word"],
      { encoding: "utf8" },
    );
    expect(bad.status).toBe(EXIT.invalid);
    expect(bad.stderr).toMatch(/input word: must match pattern "\^\[a-z\]\+\$"/);
  });

  it("the CLI starts from the code cache the build trained", () => {
    expect(loadBundleIn(join(process.cwd(), "bin/load.js"))).toEqual({
      rejected: false,
      commands: COMMANDS,
      zlib: false,
    });
  });

  it.each(CRC_PATHS)(
    "checks the code caches the build trained, by $name, without a warning",
    ({ zlib, how }) => {
      const loadJs = join(process.cwd(), "bin/load.js");
      // The caches were written through process.binding: the node:zlib way must sum them alike.
      expect(loadBundleIn(loadJs, how)).toEqual({ rejected: false, commands: COMMANDS, zlib });
      expect(loadBundleIn(loadJs, { ...how, bundle: "run.cjs" })).toEqual({
        rejected: false,
        commands: [],
        zlib,
      });
    },
  );

  it.each(CRC_PATHS)(
    "uses a code cache only when it is whole and made from this very bundle ($name)",
    ({ zlib, how }) => {
      // A copy of bin/ and dist/spell.cjs, whose cache is damaged in two ways.
      const root = mkdtempSync(join(tmpdir(), "spell-cache-"));
      mkdirSync(join(root, "dist"));
      cpSync("bin", join(root, "bin"), { recursive: true });
      cpSync("dist/spell.cjs", join(root, "dist/spell.cjs"));
      const cache = readFileSync("dist/spell.cjs.v8cache");
      // Bytes flipped in the middle of the V8 data: V8 itself would crash or run garbage.
      const damaged = Buffer.from(cache);
      damaged.writeUInt32LE(0xfcfdfeff, Math.floor(damaged.length / 2));
      writeFileSync(join(root, "dist/spell.cjs.v8cache"), damaged);
      expect(loadBundleIn(join(root, "bin/load.js"), how)).toEqual({
        rejected: true,
        commands: COMMANDS,
        zlib,
      });
      // A bundle of the same length but other content: V8 would accept the old cache.
      const source = readFileSync("dist/spell.cjs", "utf8");
      writeFileSync(join(root, "dist/spell.cjs"), source.replace("loom:export", "loom:exporT"));
      writeFileSync(join(root, "dist/spell.cjs.v8cache"), cache);
      const stale = loadBundleIn(join(root, "bin/load.js"), how);
      expect(stale.rejected).toBe(true);
      expect(stale.commands).toContain("loom:exporT");
      rmSync(root, { recursive: true, force: true });
    },
  );

  it("says how to build when the checkout is not built", () => {
    const root = mkdtempSync(join(tmpdir(), "spell-unbuilt-"));
    cpSync("bin", join(root, "bin"), { recursive: true });
    const r = spawnSync(process.execPath, [join(root, "bin/run.js"), "--help"], {
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "spell: the CLI is not built in this checkout (dist/spell.cjs is missing): run `npm run build`\n",
    );
    rmSync(root, { recursive: true, force: true });
  });

  it("runs a code-medium spell through the bundle (QuickJS loads from node_modules)", () => {
    const r = spawnSync(
      process.execPath,
      ["bin/run.js", "run", "grimoire/06-medium.yaml", "--loom", "memory", "--quiet", "--json"],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      reason: "done",
      result: { growing: ["garden", "toys", "kitchen"] },
    });
  });
});
