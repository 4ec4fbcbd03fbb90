/**
 * A file that cannot be read is said once, in plain words: "cannot read X: no such file", not
 * "cannot read X: ENOENT: no such file or directory, open 'X'" (the path twice, the errno code
 * as a word). The exit code stays what it was: 3 for a missing spell or a folder given as one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dnaVerifyCommand } from "../../src/cli/dna.js";
import { EXIT } from "../../src/cli/io.js";
import { validateCommand } from "../../src/cli/validate.js";
import { errorMessage, unreadableBecause } from "../../src/core/errors.js";
import { readCaseRows } from "../../src/spell/kinds/eval-cases.js";
import { loadSpellText } from "../../src/spell/index.js";
import { io } from "../support/io.js";

const dir = mkdtempSync(join(tmpdir(), "read-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("spell validate on a file it cannot read", () => {
  it("says a missing file is missing, once, exit 3", async () => {
    const missing = join(dir, "nope.yaml");
    const o = io();
    expect(await validateCommand([missing], o)).toBe(EXIT.invalid);
    expect(o.err).toBe(`cannot read ${missing}: no such file\n`);
  });

  it("says a folder is a folder, exit 3", async () => {
    const folder = join(dir, "a-folder.yaml");
    mkdirSync(folder);
    const o = io();
    expect(await validateCommand([folder], o)).toBe(EXIT.invalid);
    expect(o.err).toBe(`cannot read ${folder}: it is a folder, not a file\n`);
  });
});

describe("the other files a command reads", () => {
  it("spell dna verify: a missing signed DNA file", async () => {
    const missing = join(dir, "dna.json");
    const o = io();
    expect(await dnaVerifyCommand(missing, {}, o)).toBe(EXIT.invalid);
    expect(o.err).toBe(`cannot read the signed DNA ${missing}: no such file\n`);
  });

  it("an eval's cases file", () => {
    const missing = join(dir, "cases.jsonl");
    expect(() => readCaseRows(missing)).toThrow(
      new RegExp(`^cannot read cases file ${missing}: no such file$`),
    );
  });

  it("a circle.state $file", async () => {
    writeFileSync(join(dir, "s.yaml"), "");
    const text = [
      "name: s",
      "llm: { provider: scripted, responses: [{ content: ok }] }",
      "identity: { system_prompt: hi }",
      "circle:",
      "  medium: code",
      "  gates: [done]",
      "  wards: [{ max_turns: 2 }]",
      "  state: { notes: { $file: gone.json } }",
      "",
    ].join("\n");
    const err = await loadSpellText(text, join(dir, "s.yaml"), { loomPath: "memory" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(errorMessage(err)).toContain("circle.state: cannot read gone.json: no such file");
  });
});

describe("unreadableBecause", () => {
  it("names the common errno codes in words, and keeps any other error's own message", () => {
    const errno = (code: string) => Object.assign(new Error(`${code}: text, open 'x'`), { code });
    expect(unreadableBecause(errno("ENOENT"))).toBe("no such file");
    expect(unreadableBecause(errno("EACCES"))).toBe("permission denied");
    expect(unreadableBecause(errno("EISDIR"))).toBe("it is a folder, not a file");
    expect(unreadableBecause(errno("EMFILE"))).toBe("EMFILE: text, open 'x'");
    expect(unreadableBecause(new Error("plain"))).toBe("plain");
  });
});
