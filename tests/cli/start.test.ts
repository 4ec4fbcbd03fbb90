// The start-up path (src/cli/start.ts, bin/run.js): help printed from dist/start-pages.json and
// `spell run` through dist/run.cjs must be indistinguishable from oclif doing the same work.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "@oclif/core/parser";
import { describe, expect, it } from "vitest";
import { checkArgv } from "../../src/cli/argv.js";
import {
  parseRun,
  planStart as planWith,
  type StartData,
  type StartPages,
  type StartProcess,
} from "../../src/cli/start.js";
import { COMMANDS } from "../../src/commands/main.js";
import Run from "../../src/commands/run.js";

const data = JSON.parse(readFileSync("dist/start.json", "utf8")) as StartData;
const pages = JSON.parse(readFileSync("dist/start-pages.json", "utf8")) as StartPages;
const planStart = (proc: StartProcess, d: StartData | undefined) => planWith(proc, d, () => pages);

/** The environment of a plain start: none of the settings that send a process to oclif. */
const plain = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(OCLIF_|SPELL_|FORCE_COLOR$|DEBUG$)/.test(k)),
);
/**
 * A hang of one process is caught here (killed after 2 minutes: status null, the test fails);
 * the loops below run one process after another, so their length is only the machine's load:
 * they carry no time limit of their own (vitest's 0).
 */
const HANG_MS = 120_000;
const spell = (argv: readonly string[], env: NodeJS.ProcessEnv = plain) =>
  spawnSync(process.execPath, ["bin/run.js", ...argv], { encoding: "utf8", env, timeout: HANG_MS });
const viaOclif = (argv: readonly string[]) => spell(argv, { ...plain, SPELLBOOK_FAST_START: "0" });
const outcome = (r: ReturnType<typeof spell>) => ({
  status: r.status,
  stdout: r.stdout,
  stderr: r.stderr,
});

describe("help printed at start-up", () => {
  it("has a page for the root, every command and every topic, both ways of asking", () => {
    const keys = Object.keys(pages);
    expect(data.helps).toEqual(keys);
    for (const id of Object.keys(COMMANDS)) {
      const words = id.split(":");
      expect(keys).toContain(JSON.stringify([...words, "--help"]));
      expect(keys).toContain(JSON.stringify(["help", ...words]));
    }
    for (const argv of [[], ["--help"], ["help"], ["--version"], ["loom"], ["loom", "--help"]])
      expect(keys).toContain(JSON.stringify(argv));
  });

  it("prints, for each page, exactly what oclif renders live", () => {
    for (const key of Object.keys(pages)) {
      const argv = JSON.parse(key) as string[];
      const fast = outcome(spell(argv));
      expect(fast, key).toEqual(outcome(viaOclif(argv)));
      expect(fast.stdout, key).toBe(pages[key]);
    }
  }, 0); // a process per case, both ways: each bounded by HANG_MS

  const proc = (over: Partial<StartProcess>): StartProcess => ({
    argv: ["--help"],
    env: plain,
    stdoutIsTTY: false,
    userAgent: data.userAgent,
    ...over,
  });

  it("leaves to oclif what it might render otherwise", () => {
    expect(planStart(proc({}), data).kind).toBe("print");
    // A terminal has its own width, and may have colours.
    expect(planStart(proc({ stdoutIsTTY: true }), data).kind).toBe("oclif");
    for (const env of [{ OCLIF_COLUMNS: "120" }, { FORCE_COLOR: "1" }, { DEBUG: "*" }])
      expect(planStart(proc({ env: { ...plain, ...env } }), data).kind).toBe("oclif");
    // Another Node or version of spellbook than the build's: the pages would say the wrong one.
    expect(planStart(proc({ userAgent: "spellbook/9.9.9 linux-x64 node-v99" }), data).kind).toBe(
      "oclif",
    );
    expect(planStart(proc({ env: { ...plain, SPELLBOOK_FAST_START: "0" } }), data).kind).toBe(
      "oclif",
    );
    expect(planStart(proc({}), undefined).kind).toBe("oclif");
  });

  it("a width set for oclif is oclif's to render", () => {
    const narrow = spell(["--help"], { ...plain, OCLIF_COLUMNS: "50" });
    expect(narrow.status).toBe(0);
    expect(narrow.stdout).not.toBe(pages[JSON.stringify(["--help"])]);
    // oclif lays the commands out one under the other at a width this narrow.
    expect(narrow.stdout).toMatch(/\n {2}acp\n {6}Serve a spell/);
  });
});

/** oclif's own parse of `spell run ARGV`: { file, flags }, or the error it throws. */
async function oclifParse(argv: string[]) {
  try {
    const { args, flags } = await parse(argv, { args: Run.args, flags: Run.flags, strict: true });
    return { file: args.file, flags };
  } catch (err) {
    return err as Error;
  }
}

describe("spell run's arguments, parsed without oclif", () => {
  const PLAIN = [
    ["f.yaml"],
    ["f.yaml", "--loom", "memory", "--quiet"],
    ["--quiet", "f.yaml", "--json"],
    ["f.yaml", "-q", "-i", "What is 2 + 3?"],
    ["f.yaml", "--intent=a = b", "--llm", "openai/gpt-4.1"],
    ["--loom=x.jsonl", "f.yaml", "--intent", "two words"],
    ["f.yaml", "--input", "path=a b", "--input=words=50", "--inputs", "in.json"],
    ["--input", "path=a", "f.yaml"],
  ];
  const OTHER = [
    [],
    ["f.yaml", "g.yaml"],
    ["f.yaml", "--quiet", "--quiet"],
    ["f.yaml", "--intent", "a", "-i", "b"],
    ["f.yaml", "--intent"],
    ["f.yaml", "--intent", "--json"],
    ["f.yaml", "--intent="],
    ["f.yaml", "--json=true"],
    ["f.yaml", "-qi", "x"],
    ["f.yaml", "-ix"],
    ["f.yaml", "--help"],
    ["f.yaml", "-h"],
    ["f.yaml", "--version"],
    ["f.yaml", "--no-json"],
    ["f.yaml", "--quite"],
    ["f.yaml", "--"],
    ["--", "f.yaml"],
    ["-", "f.yaml"],
    ["f.yaml", "--constructor", "x"],
    ["f.yaml", "--i", "x"],
  ];

  it("reads plain command lines exactly as oclif does", async () => {
    for (const argv of PLAIN) {
      const fast = parseRun(argv, data.run);
      expect(fast, argv.join(" ")).toBeDefined();
      expect(fast).toEqual(await oclifParse(argv));
      expect(checkArgv(["run", ...argv], COMMANDS)).toEqual({ args: ["run", ...argv] });
    }
  });

  it("leaves every other command line to oclif", async () => {
    for (const argv of OTHER) {
      expect(parseRun(argv, data.run), argv.join(" ")).toBeUndefined();
      // Where oclif does accept one, start.ts only gave up a little speed.
      const slow = await oclifParse(argv);
      if (!(slow instanceof Error)) expect(slow.file).toBeDefined();
    }
  });

  it("gives up on a run command whose flags it does not know how to read", () => {
    const withDefault = {
      ...data.run,
      flags: { ...data.run.flags, loom: { ...data.run.flags["loom"]!, default: "memory" } },
    };
    expect(parseRun(["f.yaml"], withDefault)).toBeUndefined();
    const twoArgs = { ...data.run, args: { ...data.run.args, more: {} } };
    expect(parseRun(["f.yaml"], twoArgs)).toBeUndefined();
  });
});

describe("spell run without oclif", () => {
  const dir = mkdtempSync(join(tmpdir(), "spell-start-"));
  const spellFile = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  // Timings and the entity's random id differ from run to run.
  const same = (r: ReturnType<typeof spell>) => ({
    ...outcome(r),
    stdout: r.stdout.replace(/(ent|turn)_[0-9a-f-]+/g, "$1_X"),
    stderr: r.stderr.replace(/(ent|turn)_[0-9a-f-]+/g, "$1_X").replace(/\d+ ms/g, "N ms"),
  });
  const cantrip = "grimoire/04-cantrip.yaml";
  const cases = [
    [cantrip, "--loom", "memory"],
    [cantrip, "--loom", "memory", "--json"],
    [cantrip, "--loom", "memory", "-q", "--intent", "What is 1 + 1?"],
    [cantrip, "--loom", "memory", "--llm", "nowhere/model"],
    [join(dir, "missing.yaml")],
    [
      spellFile(
        "down.yaml",
        "llm: { provider: scripted, responses: [{ error: { status: 500, message: down } }] }\nidentity: {}\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\nintent: go\n",
      ),
      "--loom",
      "memory",
    ],
    [
      spellFile(
        "bad.yaml",
        "llm: { provider: scripted, responses: [] }\ncircle:\n  gates: [echo]\n  wardz: []\n",
      ),
    ],
    [
      spellFile(
        "cut.yaml",
        [
          "llm: { provider: scripted, responses: [{ tool_calls: [{ gate: echo, args: { text: a } }] }] }",
          "identity: { system_prompt: echo }",
          "circle: { gates: [done, echo], wards: [{ max_turns: 1 }] }",
          "intent: go",
        ].join("\n"),
      ),
      "--loom",
      "memory",
    ],
  ];

  it("prints and exits exactly as through oclif", () => {
    const statuses = new Set<number | null>();
    for (const argv of cases) {
      const full = ["run", ...argv];
      expect(parseRun(argv, data.run), argv.join(" ")).toBeDefined();
      const fast = same(spell(full));
      expect(fast, argv.join(" ")).toEqual(same(viaOclif(full)));
      statuses.add(fast.status);
    }
    // The cases cover success, a truncation, an invalid spell, flag or file (exit 3), and a
    // failure (a provider that answers 500).
    expect([...statuses].sort()).toEqual([0, 2, 3, 4]);
  }, 0); // a process per case, both ways: each bounded by HANG_MS

  it("is quiet, as oclif is, when the reader closes stdout early", () => {
    for (const argv of [["--help"], ["run", cantrip, "--loom", "memory", "--quiet"]]) {
      for (const fast of ["1", "0"]) {
        const r = spawnSync(
          "bash",
          ["-c", 'node bin/run.js "$@" | true; exit "${PIPESTATUS[0]}"', "--", ...argv],
          {
            encoding: "utf8",
            env: { ...plain, SPELLBOOK_FAST_START: fast },
            timeout: HANG_MS,
          },
        );
        expect({ status: r.status, stderr: r.stderr }, `${fast} ${argv.join(" ")}`).toEqual({
          status: 0,
          stderr: "",
        });
      }
    }
  }, 0); // four processes one after another, each bounded by HANG_MS

  it("hands an error that escapes the cast to oclif's handler", () => {
    const r = spawnSync(
      process.execPath,
      [
        "-e",
        'const { loadBundle } = require("./bin/load.js"); console.log(typeof loadBundle().exports.handle, typeof loadBundle({ bundle: "run.cjs" }).exports.run)',
      ],
      { encoding: "utf8" },
    );
    expect(r.stdout).toBe("function function\n");
  });

  it("loads neither oclif nor what a conversation spell does not use (OpenTelemetry only with --otel)", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--require",
        "./tests/cli/trace-require.cjs",
        "--require",
        "./tests/cli/trace-builtins.cjs",
        "bin/run.js",
        "run",
        cantrip,
        "--loom",
        "memory",
        "--quiet",
      ],
      // stdin as a user's `spell run … </dev/null` or a CI step has it: not a pipe.
      { encoding: "utf8", env: plain, stdio: ["ignore", "pipe", "pipe"] },
    );
    expect(r.status).toBe(0);
    const loaded = r.stderr.split("\n").filter((l) => l.startsWith("LOADED "));
    expect(loaded.some((l) => l.endsWith("dist/run.cjs"))).toBe(true);
    expect(
      loaded.filter((l) =>
        /spell\.cjs|@oclif|openai|@anthropic-ai|quickjs|@modelcontextprotocol|@opentelemetry/.test(
          l,
        ),
      ),
    ).toEqual([]);
    const builtins = r.stderr.split("\n").filter((l) => l.startsWith("BUILTIN "));
    expect(builtins.length).toBeGreaterThan(0);
    expect(
      builtins.filter((l) =>
        /^BUILTIN (crypto|child_process|worker_threads|perf_hooks|http|https|tls|readline|fs\/promises|timers\/promises)$/.test(
          l,
        ),
      ),
    ).toEqual([]);
    // Nor node:zlib, which brings the stream classes: the code cache is checked with zlib's
    // CRC-32 through process.binding (bin/load.js).
    expect(builtins.filter((l) => /^BUILTIN (zlib|stream)$/.test(l))).toEqual([]);
    // Nor a stream on stdin: whether it is a terminal is asked of the file descriptor.
    expect(builtins.filter((l) => l.endsWith("internal/fs/streams"))).toEqual([]);
    // Nor on stdout and stderr (pipes here): the run writes to them with fs.writeSync, and
    // asks whether they are terminals without node:tty (src/cli/stdio.ts).
    expect(
      builtins.filter((l) => /^BUILTIN (net|tty|internal\/fs\/sync_write_stream)$/.test(l)),
    ).toEqual([]);
    expect(r.stdout).not.toBe("");
    // The search gate finds re2js on its first search, not when the bundle loads: resolving a
    // package by its `exports` loads Node's ES module resolver (~5 ms of every start-up).
    expect(builtins.filter((l) => l.endsWith("internal/modules/esm/resolve"))).toEqual([]);
  });
});
