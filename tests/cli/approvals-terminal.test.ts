/**
 * Issue 25 on the command line: `spell run` on a terminal asks before a write (a pseudo-terminal
 * made by util-linux `script`, so stdin and stderr are TTYs as for a person), and answers
 * yes / no / always; `--yes` and `--approve gate=write` pre-approve; on a pipe with neither,
 * nobody can answer and the write is denied. Needs `npm run build` (the test spawns bin/run.js).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { validateCommand } from "../../src/cli/validate.js";
import { io } from "../support/io.js";
import { needs } from "../support/needs.js";

const hasScript = spawnSync("script", ["--version"]).status === 0;
const BIN = resolve("bin/run.js");

/** A writer: two writes, then done with what it saw. */
const SPELL = `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: write, args: { path: a.txt, content: "secret-free text" } }]
    - tool_calls: [{ gate: write, args: { path: b.txt, content: more } }]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: {}
intent: write the files
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 5 }]
  approve: [{ gate: write }]
`;

function spellDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "approvals-tty-"));
  writeFileSync(join(dir, "spell.yaml"), SPELL);
  return dir;
}

/**
 * Runs `spell run` under a pseudo-terminal; each time a prompt appears, types the next answer.
 * Resolves with everything the terminal showed and the exit code.
 */
function runOnTerminal(dir: string, answers: string[]): Promise<{ out: string; code: number }> {
  const command = `${process.execPath} ${BIN} run spell.yaml --loom memory`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: dir });
  let out = "";
  let prompts = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    const seen = out.split("allow? [y] once").length - 1;
    while (prompts < seen) {
      const answer = answers[prompts++] ?? "n";
      child.stdin.write(`${answer}\r`);
    }
  });
  return new Promise((done) => child.on("close", (code) => done({ out, code: code ?? -1 })));
}

needs(hasScript ? undefined : "util-linux's script is not installed").describe(
  "spell run asks on a terminal",
  () => {
    it("yes: the prompt shows the gate and its arguments, and the write runs", async () => {
      const dir = spellDir();
      const { out, code } = await runOnTerminal(dir, ["y", "y"]);
      expect(out).toMatch(/approval needed: write — approve: gate write/);
      expect(out).toMatch(/arguments: \{"path":"a\.txt","content":"secret-free text"\}/);
      expect(code).toBe(0);
      expect(existsSync(join(dir, "a.txt"))).toBe(true);
      expect(existsSync(join(dir, "b.txt"))).toBe(true);
    });

    it("no: the write is denied and never runs; the cast goes on", async () => {
      const dir = spellDir();
      const { out, code } = await runOnTerminal(dir, ["n", "n"]);
      expect(code).toBe(0);
      expect(out).toMatch(/finished/);
      expect(existsSync(join(dir, "a.txt"))).toBe(false);
      expect(existsSync(join(dir, "b.txt"))).toBe(false);
    });

    it("always: asked once for this cast, both writes run", async () => {
      const dir = spellDir();
      const { out, code } = await runOnTerminal(dir, ["a"]);
      expect(code).toBe(0);
      expect(out.split("allow? [y] once").length - 1).toBe(1);
      expect(existsSync(join(dir, "b.txt"))).toBe(true);
    });
  },
);

describe("spell run without a terminal", () => {
  const run = (dir: string, ...flags: string[]) =>
    spawnSync(
      process.execPath,
      [BIN, "run", "spell.yaml", "--loom", "memory", "--json", ...flags],
      {
        cwd: dir,
        input: "",
        encoding: "utf8",
      },
    );

  it("on a pipe nobody can answer: the write is denied (no approver)", () => {
    const dir = spellDir();
    const r = run(dir);
    expect(r.status).toBe(0);
    expect(existsSync(join(dir, "a.txt"))).toBe(false);
  });

  it("--yes and --approve gate=write pre-approve; a bad --approve is refused (exit 3)", () => {
    const yes = spellDir();
    expect(run(yes, "--yes").status).toBe(0);
    expect(existsSync(join(yes, "a.txt"))).toBe(true);
    const named = spellDir();
    expect(run(named, "--approve", "gate=write").status).toBe(0);
    expect(existsSync(join(named, "b.txt"))).toBe(true);
    const other = spellDir();
    expect(run(other, "--approve", "gate=read").status).toBe(0);
    expect(existsSync(join(other, "a.txt"))).toBe(false);
    const bad = run(spellDir(), "--approve", "write");
    expect(bad.status).toBe(3);
    expect(bad.stderr).toMatch(/--approve takes gate=NAME/);
  });
});

describe("spell validate lists what a spell will ask for", () => {
  it("one line per approve: item, with the timeout", async () => {
    const o = io();
    const file = join(spellDir(), "spell.yaml");
    writeFileSync(
      file,
      SPELL.replace(
        "approve: [{ gate: write }]",
        'approve: [{ gate: write }, { gate: "notes_*", unless: { path: "tmp/*" } }]\n  approval_timeout_ms: 5000',
      ),
    );
    expect(await validateCommand([file], o)).toBe(EXIT.ok);
    expect(o.out).toContain("asks before gate write (no answer in 5000 ms: denied)");
    expect(o.out).toContain("asks before gate notes_* unless path=tmp/* (no answer in 5000 ms");
  });
});
