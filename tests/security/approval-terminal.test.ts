/**
 * Issue 38: the terminal's approval question shows what is approved. The deciding arguments
 * (path, url, command) come first and whole, however much text stands before them; no control
 * character of the arguments reaches the terminal (a raw `\r` returns the cursor and the next
 * text overwrites the shown line); `[f]` shows every argument. The questions are asked through
 * the CLI approver with its question function given (as `spell run` gives the terminal's), and
 * once on a pseudo-terminal through `spell run` (needs `npm run build`: it spawns bin/run.js).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/core/approval.js";
import { cliApprover } from "../../src/cli/approver.js";
import { needs } from "../support/needs.js";

const NOTES = "n".repeat(600);
const SECRET = "sk-test-0123456789abcdef";
const redact = (text: string) => text.split(SECRET).join("[REDACTED]");

function request(args: string, gate = "write"): ApprovalRequest {
  return {
    id: "appr_1",
    gate,
    arguments: args,
    rule: `gate ${gate}`,
    entityId: "ent_1",
    turnId: "turn_1",
    depth: 0,
    signal: new AbortController().signal,
  };
}

/** Asks one request; each question shown is kept, and answered with the next answer. */
async function ask(req: ApprovalRequest, answers: string[]) {
  const shown: string[] = [];
  const approver = cliApprover(
    {},
    (text) => {
      shown.push(text);
      return Promise.resolve(answers.shift() ?? "n");
    },
    redact,
  )!;
  return { answer: await approver(req), shown };
}

/** Every control character but the question's own line ends. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("the terminal's approval question", () => {
  it("shows the path first and whole, past 600 characters of notes", async () => {
    const args = JSON.stringify({ notes: NOTES, path: ".git/hooks/pre-commit", content: "x" });
    const { shown } = await ask(request(args), ["n"]);
    const [text] = shown;
    expect(text).toContain("\n  path: .git/hooks/pre-commit\n");
    expect(text!.indexOf("path: .git/hooks")).toBeLessThan(text!.indexOf("arguments:"));
    expect(text).toMatch(/… \(\d+ chars; \[f\] shows them all\)/);
  });

  it("shows url and command whole, however long", async () => {
    const url = `https://api.example.org/${"a".repeat(900)}/tail-of-the-url`;
    const { shown } = await ask(request(JSON.stringify({ url }), "fetch"), ["n"]);
    expect(shown[0]).toContain(`\n  url: ${url}\n`);
    const command = `echo ${"x".repeat(900)}; git push --force`;
    const bash = await ask(request(JSON.stringify({ command }), "bash"), ["n"]);
    expect(bash.shown[0]).toContain(`\n  command: ${command}\n`);
  });

  it.each([
    ["a \\r in a deciding field", JSON.stringify({ path: "notes/a.txt\r.git/hooks/pre-commit" })],
    ["a raw \\r in arguments that are not JSON", `{"path": "notes/a.txt\r\u001b[2K.git/x"}`],
    ["an escape sequence", JSON.stringify({ command: "ls\u001b[1A\u001b[2Kgit push" })],
    ["a newline that fakes a line", JSON.stringify({ command: "ls\n  allow? [y] once" })],
    ["a bidirectional override", JSON.stringify({ path: "notes/\u202etxt.hs" })],
    ["a C1 control", JSON.stringify({ url: "https://x.example/\u009b2K" })],
  ])("escapes %s: no control character reaches the terminal", async (_, args) => {
    const { shown } = await ask(request(args), ["f", "n"]);
    expect(shown).toHaveLength(2);
    for (const text of shown) {
      expect(text).not.toMatch(CONTROL);
      // The question's own lines, and no more: a newline of the arguments is shown as \n.
      for (const line of text.split("\n").slice(1))
        expect(line).toMatch(
          /^(approval needed: | {2}(path|url|command|arguments): | {2}allow\? )/,
        );
    }
    expect(shown[0]).toMatch(/\\r|\\u001b|\\n|\\u202e|\\u009b/);
  });

  it("[f] asks again with every argument; the answer after it decides", async () => {
    const args = JSON.stringify({ notes: NOTES, path: "notes/a.txt", content: "the end" });
    const { shown, answer } = await ask(request(args), ["f", "y"]);
    expect(shown).toHaveLength(2);
    expect(shown[0]).not.toContain("the end");
    expect(shown[1]).toContain(`"content":"the end"`);
    expect(shown[1]).not.toContain("chars; [f]");
    expect(answer).toEqual({ allow: true, by: "terminal" });
  });

  it("a secret stays redacted in the deciding fields and in the full arguments", async () => {
    const args = JSON.stringify({ notes: NOTES, url: `https://x.example/?key=${SECRET}` });
    const { shown } = await ask(request(args, "fetch"), ["f", "n"]);
    for (const text of shown) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain("key=[REDACTED]");
    }
  });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;
const BIN = resolve("bin/run.js");

needs(hasScript ? undefined : "util-linux's script is not installed").describe(
  "spell run on a pseudo-terminal (skipped without util-linux script)",
  () => {
    it("a write to .git/hooks behind 600 characters of notes and a \\r: the path is shown, the \\r is not", async () => {
      const dir = mkdtempSync(join(tmpdir(), "approval-tty-"));
      const args = JSON.stringify({
        notes: NOTES,
        path: ".git/hooks/pre-commit",
        content: "safe\rOVERWRITTEN-LINE",
      });
      writeFileSync(
        join(dir, "spell.yaml"),
        `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: write, args: ${args} }]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: {}
intent: write
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 3 }]
  approve: [{ gate: write }]
`,
      );
      const child = spawn(
        "script",
        ["-qfec", `${process.execPath} ${BIN} run spell.yaml --loom memory`, "/dev/null"],
        { cwd: dir },
      );
      let out = "";
      let prompts = 0;
      const answers = ["f", "n"];
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        while (prompts < out.split("allow? [y] once").length - 1)
          child.stdin.write(`${answers[prompts++] ?? "n"}\r`);
      });
      const code = await new Promise((done) => child.on("close", done));
      expect(code).toBe(0);
      expect(prompts).toBe(2);
      expect(out).toContain("path: .git/hooks/pre-commit");
      expect(out).toContain("safe\\rOVERWRITTEN-LINE"); // shown escaped, in the full arguments
      expect(out).not.toContain("\rOVERWRITTEN-LINE");
      expect(existsSync(join(dir, ".git"))).toBe(false);
    });
  },
);
