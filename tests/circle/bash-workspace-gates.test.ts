import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { GateContext } from "../../src/circle/gate.js";
import { readGate, searchGate, writeGate } from "../../src/circle/gates/index.js";
import { spellDir } from "./bash-helpers.js";

const ctx = {
  entityId: "e",
  turnId: "t",
  signal: new AbortController().signal,
  entity: undefined as unknown as GateContext["entity"], // file gates never look at the caller
  depth: 0,
} satisfies GateContext;

function workspace() {
  const top = spellDir({
    "secret.txt": "TOP",
    "root/a.txt": "alpha\nneedle one\n",
    "root/sub/b.md": "x\ny\nneedle (two)\n",
    "root/.gitignore": "build/\n*.log\n",
    "root/build/out.txt": "needle built\n",
    "root/debug.log": "needle logged\n",
    "root/sub/.gitignore": "private.txt\n",
    "root/sub/private.txt": "needle private\n",
  });
  const root = join(top, "root");
  symlinkSync(join(top, "secret.txt"), join(root, "link.txt"));
  return { top, root };
}

describe("workspace gates (seed 002 Gates)", () => {
  it("search finds a regex under the root as file:line, skipping what .gitignore ignores", async () => {
    const { root } = workspace();
    const search = searchGate({ root });
    expect(await search.execute({ pattern: "need.e" }, ctx)).toBe(
      "a.txt:2: needle one\nsub/b.md:3: needle (two)",
    );
    expect(await search.execute({ pattern: "(two)", literal: true }, ctx)).toBe(
      "sub/b.md:3: needle (two)",
    );
    expect(await search.execute({ pattern: "needle", path: "sub" }, ctx)).toBe(
      "sub/b.md:3: needle (two)",
    );
    expect(await search.execute({ pattern: "nothing-like-this" }, ctx)).toBe("no matches");
    await expect(
      Promise.resolve().then(() => search.execute({ pattern: "(" }, ctx)),
    ).rejects.toThrow(/bad regular expression.*literal: true/);
    expect(() => search.execute({ pattern: "x", path: "../" }, ctx)).toThrow(
      /outside the gate root/,
    );
  });

  it("search caps its results and says how many it left out", async () => {
    const lines = Array.from({ length: 150 }, (_, i) => `hit ${i}`).join("\n");
    const top = spellDir({ "many.txt": lines });
    const out = String(await searchGate({ root: top }).execute({ pattern: "hit" }, ctx)).split(
      "\n",
    );
    expect(out).toHaveLength(101);
    expect(out[0]).toBe("many.txt:1: hit 0");
    expect(out[100]).toBe("[50 more matches not shown; narrow the pattern or the path]");
  });

  it("write replaces a file whole inside a writable root, makes folders, and keeps no temp file", () => {
    const { root } = workspace();
    const write = writeGate({ root, writable: true });
    expect(write.execute({ path: "a.txt", content: "new" }, ctx)).toBe("wrote 3 bytes to a.txt");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("new");
    write.execute({ path: "deep/er/c.txt", content: "c" }, ctx);
    expect(readFileSync(join(root, "deep/er/c.txt"), "utf8")).toBe("c");
    expect(readdirSync(root).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("write refuses escapes, directories, oversize content and roots not declared writable", () => {
    const { top, root } = workspace();
    mkdirSync(join(root, "dir"));
    const write = writeGate({ root, writable: true, maxBytes: 10 });
    for (const path of ["../x.txt", "sub/../../x.txt", "link.txt", "/../x.txt"])
      expect(() => write.execute({ path, content: "x" }, ctx)).toThrow(/outside the gate root/);
    expect(readFileSync(join(top, "secret.txt"), "utf8")).toBe("TOP");
    expect(existsSync(join(top, "x.txt"))).toBe(false);
    expect(() => write.execute({ path: "dir", content: "x" }, ctx)).toThrow(/EISDIR/);
    expect(() => write.execute({ path: "a.txt", content: "x".repeat(11) }, ctx)).toThrow(
      /11 bytes; write takes at most 10/,
    );
    expect(() => writeGate({ root, writable: false })).toThrow(/write needs a writable root/);
  });

  it("read of a directory is a structured error observation, not a crash", () => {
    const { root } = workspace();
    expect(() => readGate({ root }).execute({ path: "." }, ctx)).toThrow(
      /EISDIR: "\." is a directory/,
    );
  });

  it("a bash circle fails at load with the install command when bubblewrap is missing", () => {
    const dir = spellDir({
      "s.yaml":
        "llm: { provider: scripted }\nidentity: {}\ncircle:\n  medium: bash\n  gates: [done]\n  wards: [{ max_turns: 1 }]\n",
    });
    // The CLI with a PATH where no bwrap can be found.
    const out = spawnSync(
      process.execPath,
      [join(process.cwd(), "bin/run.js"), "validate", join(dir, "s.yaml")],
      {
        env: { PATH: "/nonexistent" },
        encoding: "utf8",
      },
    );
    expect(out.status).not.toBe(0);
    expect(out.stderr + out.stdout).toMatch(
      /bubblewrap \(bwrap\) is not installed; install it: apt-get install -y bubblewrap/,
    );
    expect(out.stderr + out.stdout).toContain("sandbox: passthrough");
  });
});
