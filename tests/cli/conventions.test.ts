import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkArgv } from "../../src/cli/argv.js";
import { EXIT, type CliIO } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { COMMANDS } from "../../src/commands/main.js";

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
    expect(turns.filter((l) => /^ {2}↳ \[ent_\w+\] turn 1 · done/.test(l))).toHaveLength(3);
    expect(turns.filter((l) => l.startsWith("turn 1 · call_entity_batch"))).toHaveLength(1);
  });
});
