/**
 * A turn whose observation was an error (code that threw, a gate call that failed) says so: its
 * `step_complete` event carries `isError` and the error's first line, and `spell run`'s progress
 * line on stderr says `error: …` (redacted, one short line) instead of "no gates". Real loader,
 * circle and mediums, the scripted provider; the CLI in process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CantripEvent } from "../../src/core/events.js";
import { loadSpell } from "../../src/spell/index.js";
import { runCommand } from "../../src/cli/run.js";
import { EXIT } from "../../src/cli/io.js";
import { io } from "../support/io.js";
import { commandError } from "../../src/circle/mediums/bash/observation.js";

const dir = mkdtempSync(join(tmpdir(), "progress-error-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = "sk-polish-4471-secret";

const CODE = `name: thrower
llm:
  provider: scripted
  responses:
    - code: "throw new Error('bad key ${KEY}\\\\nsecond line')"
    - code: "done(1)"
identity: { system_prompt: "key \${env:PB_KEY}" }
intent: go
circle:
  medium: code
  gates: [done]
  wards: [{ max_turns: 3 }]
`;

const GATE = `name: failing-gate
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: read, args: { path: missing.txt } }]
    - tool_calls: [{ gate: done, args: { answer: ok } }]
identity: { system_prompt: hi }
intent: go
circle:
  gates: [done, { read: { root: "." } }]
  wards: [{ max_turns: 3 }]
`;

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function steps(file: string): Promise<Extract<CantripEvent, { type: "step_complete" }>[]> {
  process.env["PB_KEY"] = KEY;
  const loaded = await loadSpell(file, { loomPath: "memory" });
  const events: CantripEvent[] = [];
  await loaded.cantrip!.cast("go", { onEvent: (e) => events.push(e) });
  return events.filter((e) => e.type === "step_complete");
}

describe("step_complete of a turn that erred", () => {
  it("carries isError and the error's first line for code that threw; a clean turn has isError false", async () => {
    const [first, second] = await steps(write("code.yaml", CODE));
    expect(first!.isError).toBe(true);
    expect(first!.error).toMatch(/^Error: bad key sk-polish-4471-secret$/);
    expect(second!.isError).toBe(false);
    expect(second!.error).toBeUndefined();
    // The fields consumers already read are all still there.
    expect(first).toMatchObject({ gates: [], outcome: "continue", sequence: 1 });
  });

  it("carries isError and the failed gate call's message for a gate that failed", async () => {
    const [first] = await steps(write("gate.yaml", GATE));
    expect(first!.gates).toEqual(["read"]);
    expect(first!.isError).toBe(true);
    expect(first!.error).toMatch(/missing\.txt/);
  });
});

describe("spell run's progress line", () => {
  it("says the turn erred, with the error's first line redacted, not 'no gates'", async () => {
    const o = io({ PB_KEY: KEY });
    process.env["PB_KEY"] = KEY;
    const code = await runCommand(write("run.yaml", CODE), { loom: "memory" }, o);
    expect(code).toBe(EXIT.ok);
    expect(o.err).toMatch(/turn 1 · error: Error: bad key \[REDACTED\] · /);
    expect(o.err).not.toMatch(/turn 1 · no gates/);
    expect(o.err).not.toContain(KEY);
    expect(o.err).not.toContain("second line");
    expect(o.err).toMatch(/turn 2 · done · /);
  });

  it("names the gates called and then the error when a gate call failed", async () => {
    const o = io();
    const code = await runCommand(write("run-gate.yaml", GATE), { loom: "memory" }, o);
    expect(code).toBe(EXIT.ok);
    expect(o.err).toMatch(/turn 1 · read · error: [^\n]*missing\.txt[^\n]* · \d+ tokens/);
  });
});

describe("a bash command that failed", () => {
  it("is told in a line: how it ended, then its first line of stderr", () => {
    const limits = { maxOutputKb: 64, maxCommandMs: 30000, maxMemoryMb: 1024 };
    const base = {
      stdout: "out\n",
      stdoutCut: false,
      stderrCut: false,
      signal: null,
      timedOut: false,
    };
    expect(commandError({ ...base, stderr: "ls: no such file\nmore\n", exitCode: 2 }, limits)).toBe(
      "[exit 2] ls: no such file",
    );
    expect(commandError({ ...base, stderr: "", exitCode: 1 }, limits)).toBe("[exit 1]");
  });
});
