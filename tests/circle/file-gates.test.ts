import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listDirGate, readGate } from "../../src/circle/gates/index.js";
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
