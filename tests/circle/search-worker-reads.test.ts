// The search gate's worker reads each file itself, by the handle the gate opened inside the
// root (issue 40: the host's event loop no longer decodes nor copies a file's text). What the
// host did before, the worker does now: a file holding a NUL byte is skipped as binary, lines
// are numbered from 1 and cut at 300 characters, a file over 1 MiB is left out, and the
// hits of several files come in name order.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { searchGate } from "../../src/circle/gates/index.js";
import { fileGateContext as ctx } from "../support/gate-context.js";

describe("the search gate's worker reads the files", () => {
  it("skips binary and oversized files, numbers and cuts lines, in name order", async () => {
    const root = mkdtempSync(join(tmpdir(), "search-reads-"));
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "a.txt"), "nothing\nneedle one\n");
    writeFileSync(join(root, "b.bin"), Buffer.from("needle in a binary\0file\n"));
    writeFileSync(join(root, "c.txt"), `x\ny\nneedle ${"z".repeat(400)}\n`);
    writeFileSync(join(root, "d.txt"), `needle big\n${"w".repeat(1024 * 1024)}`);
    writeFileSync(join(root, "sub", "e.txt"), "needle é, ünïcode\n");
    const out = await searchGate({ root }).execute({ pattern: "needle" }, ctx);
    expect(String(out).split("\n")).toEqual([
      "a.txt:2: needle one",
      `c.txt:3: ${`needle ${"z".repeat(400)}`.slice(0, 300)}…`,
      "sub/e.txt:1: needle é, ünïcode",
    ]);
  });
});
