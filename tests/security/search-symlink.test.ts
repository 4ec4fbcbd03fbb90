import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { searchGate } from "../../src/circle/gates/index.js";
import { fileGateContext as ctx } from "../support/gate-context.js";

/**
 * The search gate reads only files under its root: a symlink in the root that points outside
 * (to a file, or to a folder) is not followed. Issue 21: the tests made such links but never
 * searched through them, so a walk that followed them passed every test.
 */
const MARK = "needle-outside-the-root";

function tree() {
  const top = mkdtempSync(join(tmpdir(), "search-link-"));
  const root = join(top, "root");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "inside.txt"), "needle-inside\n");
  mkdirSync(join(top, "outside"));
  writeFileSync(join(top, "outside", "secret.txt"), `${MARK}\n`);
  writeFileSync(join(top, "secret.txt"), `${MARK}\n`);
  symlinkSync(join(top, "secret.txt"), join(root, "link.txt")); // a file outside
  symlinkSync(join(top, "outside"), join(root, "sub", "away")); // a folder outside
  symlinkSync(top, join(root, "up")); // the folder holding the root
  return { top, root };
}

describe("the search gate and symlinks out of its root", () => {
  it("searching the whole root finds what is inside and nothing through a link", async () => {
    const { top, root } = tree();
    const search = searchGate({ root });
    expect(await search.execute({ pattern: "needle-inside" }, ctx)).toBe(
      "inside.txt:1: needle-inside",
    );
    const out = (await search.execute({ pattern: "needle" }, ctx)) as string;
    expect(out).toBe("inside.txt:1: needle-inside");
    expect(out).not.toContain(MARK);
    expect(out).not.toContain(top);
    expect(await search.execute({ pattern: MARK, literal: true }, ctx)).toBe("no matches");
  });

  it("a folder below the root searched directly: its links to outside are not followed", async () => {
    const { root } = tree();
    expect(await searchGate({ root }).execute({ pattern: MARK, path: "sub" }, ctx)).toBe(
      "no matches",
    );
  });

  it("a link to outside named as the folder to search is refused", async () => {
    const { root } = tree();
    const search = searchGate({ root });
    for (const path of ["up", "sub/away", "link.txt"])
      await expect(
        Promise.resolve().then(() => search.execute({ pattern: MARK, path }, ctx)),
        path,
      ).rejects.toThrow(/outside the gate root/);
  });
});
