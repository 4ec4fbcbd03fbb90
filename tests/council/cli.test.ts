/** `spell run council.yaml`, `spell council FILE` and `spell test` on a council (§11 criterion 8). */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { councilChat } from "../../src/cli/council-chat.js";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { runFile } from "../../src/conformance/runner.js";
import validateResult from "../../src/generated/executor-result-validate.js";
import { triageJson } from "./helpers.js";
import { io } from "../support/io.js";

async function* linesOf(...lines: string[]) {
  for (const l of lines) yield await Promise.resolve(l);
}

const SPELL = "spells/council.yaml";
const dir = mkdtempSync(join(tmpdir(), "council-cli-"));

describe("spell run council.yaml", () => {
  it("prints the final response, and the loops on stderr", async () => {
    const o = io();
    expect(await runCommand(SPELL, { loom: "memory" }, o)).toBe(EXIT.ok);
    expect(o.out).toMatch(/^Run a six-month pilot of a 9-day fortnight/);
    expect(o.err).toMatch(/\n\[Processing\.\.\. 2 loops executed\] · early exit · loom memory\n$/);
  });

  it("--json prints the ExecutorResult in its schema's snake_case form", async () => {
    const o = io();
    expect(await runCommand(SPELL, { loom: "memory", json: true, intent: "other" }, o)).toBe(
      EXIT.ok,
    );
    const result: unknown = JSON.parse(o.out);
    expect(validateResult(result)).toBe(true);
    expect(result).toMatchObject({ loops_executed: 2, early_exit: true });
    expect((result as { reasoning_trace: unknown[] }).reasoning_trace).toHaveLength(2);
    expect(o.err).toBe("");
  });

  it("a triage reply that breaks the schema fails the run (exit 4) with the rule named", async () => {
    const bad = JSON.stringify(triageJson({ loop_count: 9 }));
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      `kind: council\nintent: q\nllm: scripted/x\ntriage: { llm: { provider: scripted, responses: [{ content: ${JSON.stringify(bad)} }] } }\n`,
    );
    const o = io();
    expect(await runCommand(file, { loom: "memory" }, o)).toBe(EXIT.failure);
    expect(o.err).toContain("loop_count: loop_count must be an integer from 2 to 5 (is 9)");
  });
});

describe("spell council FILE", () => {
  it("answers each line, toggles the trace, prints errors and goes on, quits on exit", async () => {
    const o = io();
    // The example's scripts cycle; without cycle: they are spent after one query.
    const once = join(dir, "once.yaml");
    writeFileSync(once, readFileSync(SPELL, "utf8").replaceAll("cycle: true", "cycle: false"));
    const code = await councilChat(
      once,
      { loom: "memory" },
      o,
      linesOf("trace off", "Should we?", "", "again?", "exit", "never read"),
    );
    expect(code).toBe(EXIT.ok);
    expect(o.out).toContain(
      "Crucible v1.0\nType 'exit' to quit, 'trace on/off' to toggle observability\n",
    );
    expect(o.out).toContain("Observability disabled.");
    expect(o.out).toContain("[Processing... 2 loops executed]\n\nRun a six-month pilot");
    expect(o.out).not.toContain("Loop 1:"); // trace off
    expect(o.out).toMatch(/error: triage \(scripted\): scripted llm .* has no response left/); // the scripts are spent
  });

  it("says short-circuited when the council is bypassed, and prints the trace when on", async () => {
    const simple = triageJson({ complexity: "simple", short_circuit_allowed: true });
    const file = join(dir, "simple.yaml");
    writeFileSync(
      file,
      `kind: council\nllm: { provider: scripted, responses: [{ content: Paris. }] }\ntriage: { output: ${JSON.stringify(simple)} }\n`,
    );
    const o = io();
    await councilChat(file, { loom: "memory" }, o, linesOf("trace on", "Capital of France?"));
    expect(o.out).toContain("Observability enabled.");
    expect(o.out).toContain("[Processing... short-circuited]\n\nParis.\n");
  });
});

describe("spell council FILE's trace", () => {
  it("redacts a critique before it cuts it: no start of a key is printed", async () => {
    // A key-shaped secret starting just before the 100th character: cut first, its start
    // ("sk-test-ab") no longer has the shape the redactor knows.
    const key = "sk-test-abcdefghijklmnopqrstuvwxyz0123";
    const critique = `${"x".repeat(89)} ${key} and more`;
    const file = join(dir, "critique.yaml");
    writeFileSync(
      file,
      readFileSync(SPELL, "utf8").replace(
        "- content: The trial evidence is from self-selected firms; support coverage is hand-waved; nobody priced the pilot.",
        `- content: ${JSON.stringify(critique)}`,
      ),
    );
    const o = io();
    await councilChat(file, { loom: "memory" }, o, linesOf("trace on", "Should we?"));
    expect(o.out).toContain("Loop 1:");
    expect(o.out).not.toContain("sk-test");
  });
});

describe("spell test on a council", () => {
  it("runs the document's tests: and reports each", async () => {
    const results = await runFile(SPELL);
    expect(results.map((r) => [r.status, r.message])).toEqual([["pass", ""]]);
  });

  it("a failed expectation is said plainly", async () => {
    const file = join(dir, "expect.yaml");
    const triage = JSON.stringify(
      triageJson({ complexity: "simple", short_circuit_allowed: true }),
    );
    writeFileSync(
      file,
      `kind: council\nintent: q\nllm: { provider: scripted, responses: [{ content: Paris. }] }\ntriage: { output: ${triage} }\ntests:\n  - expect: { loops_executed: 2, short_circuited: true }\n`,
    );
    const [r] = await runFile(file);
    expect(r?.status).toBe("fail");
    expect(r?.message).toBe("loops_executed: got 0, expected 2");
  });
});
