/**
 * `globMatch` (src/circle/approvals.ts) decides whether a gate call or a bash command needs an
 * approval. Its text is the model's (a command, an argument), so matching must not backtrack:
 * a glob of many `*` against a long text that almost matches once froze the process (a regular
 * expression of `.*` runs, polynomial in the text's length), holding the event loop and with it
 * a queue worker's lock. Matched now in one pass with one saved star.
 */
import { describe, expect, it } from "vitest";
import { globMatch } from "../../src/circle/approvals.js";

describe("globMatch", () => {
  it("matches `*`, `?` and literals over the whole text", () => {
    const yes: [string, string][] = [
      ["*", ""],
      ["*", "anything at all"],
      ["git *", "git status"],
      ["a?c", "abc"],
      ["*.txt", "notes.txt"],
      ["rm -rf *", "rm -rf ./build"],
      ["a*b*c", "a-b-b-c"],
      ["fetch_*", "fetch_url"],
      ["x(y)[z]{1}+.^$|\\", "x(y)[z]{1}+.^$|\\"],
      ["*", "line one\nline two"],
      ["??", "é!"],
    ];
    const no: [string, string][] = [
      ["git *", "gitstatus"],
      ["a?c", "ac"],
      ["*.txt", "notes.txt.bak"],
      ["a*b*c", "a-b-b-d"],
      ["abc", "abcd"],
      ["", "x"],
      ["x.y", "xzy"],
    ];
    for (const [g, t] of yes) expect(globMatch(g, t), `${g} ~ ${t}`).toBe(true);
    for (const [g, t] of no) expect(globMatch(g, t), `${g} ~ ${t}`).toBe(false);
  });

  it("a glob of many stars against a long text that never matches ends (it froze the process)", () => {
    const glob = "*a*a*a*a*a*a*a*a*a*b";
    const text = "a".repeat(20_000);
    expect(globMatch(glob, text)).toBe(false);
    expect(globMatch(glob, `${text}b`)).toBe(true);
  });
});
