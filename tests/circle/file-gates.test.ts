import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listDirGate, readGate, searchGate } from "../../src/circle/gates/index.js";
import { fileGateContext } from "../support/gate-context.js";

const ctx = fileGateContext;

function tree() {
  const top = mkdtempSync(join(tmpdir(), "gates-"));
  const root = join(top, "root");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "a.txt"), "alpha");
  writeFileSync(join(top, "secret.txt"), "top secret");
  symlinkSync(join(top, "secret.txt"), join(root, "link.txt"));
  symlinkSync(top, join(root, "up"));
  return { top, root };
}

describe("file gates stay inside their root", () => {
  it("read refuses .., absolute escapes and symlinks that land outside", () => {
    const { root } = tree();
    const read = readGate({ root });
    expect(read.execute({ path: "a.txt" }, ctx)).toBe("alpha");
    expect(read.execute({ path: "/a.txt" }, ctx)).toBe("alpha");
    for (const path of ["../secret.txt", "sub/../../secret.txt", "link.txt", "up/secret.txt"]) {
      expect(() => read.execute({ path }, ctx)).toThrow(/outside the gate root/);
    }
  });

  it("errors name the virtual path, never the host path", () => {
    const { root } = tree();
    const message = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    };
    const m1 = message(() => listDirGate({ root }).execute({ path: "a.txt" }, ctx));
    expect(m1).toBe('ENOTDIR: "a.txt"');
    const m2 = message(() => readGate({ root }).execute({ path: "nope.txt" }, ctx));
    expect(m2).toMatch(/ENOENT.*"nope\.txt"/);
    expect(m1 + m2).not.toContain(root);
  });

  it("read refuses a FIFO instead of blocking the process", () => {
    const { root } = tree();
    execFileSync("mkfifo", [join(root, "pipe")]);
    expect(() => readGate({ root }).execute({ path: "pipe" }, ctx)).toThrow(/not a regular file/);
  });
});

describe("the search gate", () => {
  it("runs a pattern that backtracks exponentially in JavaScript without stopping other timers", async () => {
    const { root } = tree();
    writeFileSync(join(root, "redos.txt"), `${"a".repeat(31)}!\nplain line\n`);
    let ticks = 0;
    let ticksWhenDone = -1;
    const probe = setInterval(() => ticks++, 1);
    // A timer scheduled now must run while the search is going, not after it.
    const ticked = new Promise<void>((r) => setTimeout(r, 0));
    try {
      const search = Promise.resolve(
        searchGate({ root }).execute({ pattern: "^(a+)+$" }, ctx),
      ).then((out) => {
        ticksWhenDone = ticks;
        return out;
      });
      await ticked;
      expect(ticksWhenDone).toBe(-1); // the timer fired before the search finished
      expect(await search).toBe("no matches");
      expect(await searchGate({ root }).execute({ pattern: "^(a+)+!$" }, ctx)).toBe(
        `redos.txt:1: ${"a".repeat(31)}!`,
      );
    } finally {
      clearInterval(probe);
    }
  }, 120_000);

  it("says why a pattern with a backreference or a lookaround cannot be used", async () => {
    const { root } = tree();
    const search = searchGate({ root });
    for (const pattern of ["(a)\\1", "a(?=b)", "(?<!x)a"]) {
      await expect(
        Promise.resolve().then(() => search.execute({ pattern }, ctx)),
        pattern,
      ).rejects.toThrow(/backreferences and lookaround are not supported \(RE2 syntax\)/);
    }
  });

  it("stops when the cast is cancelled", async () => {
    const { root } = tree();
    // One line of a megabyte that keeps any engine busy for a while on this pattern.
    let line = "";
    for (let i = 0; i < 1 << 20; i++) line += i % 7 < 3 ? "a" : "b";
    writeFileSync(join(root, "big.txt"), line);
    const cancel = new AbortController();
    const search = Promise.resolve().then(() =>
      searchGate({ root }).execute(
        { pattern: "(a|b)*a(a|b){300}$" },
        { ...ctx, signal: cancel.signal },
      ),
    );
    setTimeout(() => cancel.abort(), 20);
    await expect(search).rejects.toThrow(/search cancelled/);
  }, 120_000);

  it("honours a nested .gitignore's !pattern as git does", async () => {
    const { root } = tree();
    writeFileSync(join(root, ".gitignore"), "*.log\n");
    writeFileSync(join(root, "sub", ".gitignore"), "!keep.log\n");
    writeFileSync(join(root, "top.log"), "needle top\n");
    writeFileSync(join(root, "sub", "drop.log"), "needle drop\n");
    writeFileSync(join(root, "sub", "keep.log"), "needle keep\n");
    expect(await searchGate({ root }).execute({ pattern: "needle" }, ctx)).toBe(
      "sub/keep.log:1: needle keep",
    );
  });
});
