// What the README tells a newcomer who follows it from the top, checked against the checkout:
// each fact here was a stumble once (a command that did not do what the README said, or a step
// the README left out).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const readme = readFileSync("README.md", "utf8");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { bin: Record<string, string> };

describe("the README's way to the `spell` command", () => {
  it("says how to put `spell` on the PATH (the README writes it bare after the quickstart's npx), naming the package's bin", () => {
    const alias = /alias spell="node \$PWD\/([^"]+)"/.exec(readme);
    expect(alias, "README.md shows an alias for spell").not.toBeNull();
    expect(alias![1]).toBe(pkg.bin["spell"]!.replace(/^\.\//, ""));
  });
});
