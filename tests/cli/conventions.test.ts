import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkArgv } from "../../src/cli/argv.js";
import { EXIT, type CliIO } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { COMMANDS } from "../../src/commands/main.js";
import { parseCommand } from "../support/doc-commands.js";

const spell = (...args: string[]) =>
  spawnSync(process.execPath, ["bin/run.js", ...args], { encoding: "utf8" });

describe("argv conventions", () => {
  it("reads `help X` as `X --help`", () => {
    expect(checkArgv(["help", "loom", "export"], COMMANDS)).toEqual({
      args: ["loom", "export", "--help"],
    });
  });
  it("suggests a command for a typo, a reordering included", () => {
    expect(checkArgv(["valdate", "x.yaml"], COMMANDS)).toMatchObject({
      error: expect.stringContaining('did you mean "spell validate"?') as unknown,
    });
    expect(checkArgv(["rnu"], COMMANDS)).toMatchObject({
      error: expect.stringContaining('did you mean "spell run"?') as unknown,
    });
  });
  it("suggests a flag, and skips the value of a flag that takes one", () => {
    expect(checkArgv(["run", "x.yaml", "--quite"], COMMANDS)).toMatchObject({
      error: expect.stringContaining(
        "unknown flag --quite for spell run; did you mean --quiet?",
      ) as unknown,
    });
    expect(checkArgv(["run", "x.yaml", "--intent", "--not-a-flag", "-q"], COMMANDS)).toEqual({
      args: ["run", "x.yaml", "--intent", "--not-a-flag", "-q"],
    });
    expect(checkArgv(["loom", "export", "f", "--no-redact"], COMMANDS)).toHaveProperty("args");
  });
  it("checks a subcommand's flags against the subcommand when its topic is a command too", () => {
    // `dna` is a command and the topic of `dna verify`: --key is verify's flag
    expect(checkArgv(["dna", "verify", "signed.json", "--key", "pub.pem"], COMMANDS)).toEqual({
      args: ["dna", "verify", "signed.json", "--key", "pub.pem"],
    });
    expect(checkArgv(["dna", "flow.yaml", "--key", "pub.pem"], COMMANDS)).toMatchObject({
      error: expect.stringContaining("unknown flag --key for spell dna") as unknown,
    });
  });
});

describe("every command's --help examples", () => {
  // Each example line as `spell --help` shows it passes the argument check: no unknown command
  // or flag (running them is tests/cli/doc-commands.test.ts's work for the README's lines).
  const examples = Object.entries(COMMANDS).flatMap(([id, command]) =>
    ((command as { examples?: (string | { command: string })[] }).examples ?? []).map(
      (e) => [id, typeof e === "string" ? e : e.command] as const,
    ),
  );
  it.each(examples)("spell %s: %s", (_id, example) => {
    const parsed = parseCommand(example);
    expect(parsed, example).toBeDefined();
    expect(checkArgv(parsed!.argv, COMMANDS)).toEqual({ args: parsed!.argv });
  });
});

describe("the bin keeps the README's exit codes", () => {
  it("spell help run prints run's help", () => {
    const r = spell("help", "run");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/USAGE\n {2}\$ spell run FILE/);
  });
  it("an unknown command or flag exits 3 with a did-you-mean", () => {
    const cmd = spell("tset");
    expect(cmd.status).toBe(EXIT.invalid);
    expect(cmd.stderr).toMatch(/unknown command "tset"; did you mean "spell test"\?/);
    const flag = spell("run", "grimoire/04-cantrip.yaml", "--jsn");
    expect(flag.status).toBe(EXIT.invalid);
    expect(flag.stderr).toMatch(/did you mean --json\?/);
  });
  it("a missing argument exits 3 too", () => {
    expect(spell("run").status).toBe(EXIT.invalid);
  });
  it("a spell file that does not exist is a usage error (exit 3) for every command", () => {
    for (const argv of [
      ["run", "nope.yaml"],
      ["summon", "nope.yaml"],
      ["council", "nope.yaml"],
      ["serve", "nope.yaml"],
      ["acp", "nope.yaml", "--check"],
      ["validate", "nope.yaml"],
      ["test", "nope.yaml"],
      ["flow", "nope.yaml"],
      ["dna", "nope.yaml"],
    ]) {
      const r = spell(...argv);
      expect(r.status, `spell ${argv.join(" ")}: ${r.stderr}`).toBe(EXIT.invalid);
      expect(r.stderr).toMatch(/nope\.yaml/);
    }
  }, 120_000); // nine processes, one after another, on a busy machine
  it("--llm scripted is refused with what to do instead (the scripted provider's replies live in the spell)", () => {
    for (const argv of [
      ["run", "grimoire/04-cantrip.yaml", "--llm", "scripted"],
      ["summon", "grimoire/04-cantrip.yaml", "--loom", "memory", "--llm", "scripted"],
      ["familiar", "grimoire", "--loom", "memory", "--llm", "scripted/any"],
    ]) {
      const r = spawnSync(process.execPath, ["bin/run.js", ...argv], {
        encoding: "utf8",
        input: "What is here?\n",
      });
      expect(r.status, `spell ${argv.join(" ")}: ${r.stderr}`).toBe(EXIT.invalid);
      expect(r.stderr).toMatch(/--llm scripted.*responses:/s);
      expect(r.stderr).not.toMatch(/send failed/);
    }
  }, 120_000);
  it("spell help loom describes the topic, not its first command; spell dna --help shows verify", () => {
    const loom = spell("help", "loom");
    expect(loom.status).toBe(0);
    const about = loom.stdout.split("\n")[0]!;
    expect(about).toMatch(/export/);
    expect(about).toMatch(/tree/);
    for (const command of ["stats", "reward", "thread"]) {
      expect(about).toMatch(new RegExp(`\\(loom ${command}\\)`));
      expect(loom.stdout).toMatch(new RegExp(`loom ${command}\\s`));
    }
    const dna = spell("dna", "--help");
    expect(dna.stdout).toMatch(/\$ spell dna verify greeter\.dna\.json --key pub\.pem/);
  });
});

describe("progress of children", () => {
  it("tags each child's turn lines with its entity; the cast entity's stay plain", async () => {
    let err = "";
    const io = {
      env: {},
      cwd: process.cwd(),
      stdout: () => undefined,
      stderr: (t: string) => void (err += t),
    } as CliIO;
    expect(await runCommand("grimoire/09-composition.yaml", { loom: "memory" }, io)).toBe(EXIT.ok);
    const turns = err.split("\n").filter((l) => l.includes("turn 1 ·"));
    expect(turns.filter((l) => /^ {2}↳ \[ent_[\w-]+\] turn 1 · done/.test(l))).toHaveLength(3);
    expect(turns.filter((l) => l.startsWith("turn 1 · call_entity_batch"))).toHaveLength(1);
  });
});
