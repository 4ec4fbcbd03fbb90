// What the README tells a newcomer who follows it from the top, checked against the checkout:
// each fact here was a stumble once (a command that did not do what the README said, or a step
// the README left out).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandShape } from "../../src/cli/argv.js";
import { testCommand } from "../../src/cli/test.js";
import { COMMANDS } from "../../src/commands/main.js";
import { io } from "../support/io.js";

const readme = readFileSync("README.md", "utf8");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { bin: Record<string, string> };

describe("the README's way to the `spell` command", () => {
  it("says how to put `spell` on the PATH (the README writes it bare after the quickstart's npx), naming the package's bin", () => {
    const alias = /alias spell="node \$PWD\/([^"]+)"/.exec(readme);
    expect(alias, "README.md shows an alias for spell").not.toBeNull();
    expect(alias![1]).toBe(pkg.bin["spell"]!.replace(/^\.\//, ""));
  });
});

describe("the README's first spell (## A spell)", () => {
  it("copied into a folder with the data/ its comment names, validates and its test passes; without data/ the error says to make it", async () => {
    const at = readme.indexOf("## A spell\n");
    const yaml = /```yaml\n([\s\S]*?)```/.exec(readme.slice(at))![1]!;
    expect(yaml).toMatch(/root: data \}.*# data\/: a folder beside the spell/);
    const dir = mkdtempSync(join(tmpdir(), "readme-spell-"));
    writeFileSync(join(dir, "arithmetic.yaml"), yaml);
    const before = io();
    before.cwd = dir;
    expect(await testCommand(["arithmetic.yaml"], { reporter: "text" }, before)).toBe(1);
    expect(before.err).toMatch(/does not exist: make the folder/);
    mkdirSync(join(dir, "data"));
    const after = io();
    after.cwd = dir;
    expect(await testCommand(["arithmetic.yaml"], { reporter: "text" }, after)).toBe(0);
    expect(after.out).toMatch(/1 passed, 0 failed, 0 skipped/);
  });
});

describe("a postgres:// loom (README: `--loom postgres://…`)", () => {
  const commands = ["run", "summon", "serve", "mcp", "acp", "council", "flow"];

  it.each(commands)(
    "spell %s --help says its --loom takes a postgres:// URL, as it does",
    (name) => {
      const flags = (COMMANDS as Record<string, CommandShape>)[name]!.flags ?? {};
      expect((flags["loom"] as { description?: string }).description).toMatch(/postgres:\/\/ URL/);
    },
  );

  it.each(["loom:export", "loom:tree"])(
    "spell %s --help says it reads a postgres:// URL too",
    (id) => {
      const description = (COMMANDS as Record<string, { description?: string }>)[id]!.description;
      expect(description).toMatch(/a file or a postgres:\/\/ URL/);
    },
  );

  it.each(commands)("the README's command list shows postgres:// on spell %s's --loom", (name) => {
    const block = /## The CLI\n\n```\n([\s\S]*?)```/.exec(readme)![1]!;
    const first = block.split("\n").find((l) => l.startsWith(`spell ${name} `))!;
    expect(first).toMatch(/--loom PATH\|memory\|postgres:\/\/…/);
  });
});
