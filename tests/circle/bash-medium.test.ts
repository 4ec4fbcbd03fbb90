import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Circle } from "../../src/circle/circle.js";
import { doneGate, readGate } from "../../src/circle/gates/index.js";
import { createBashMedium, type SandboxMode } from "../../src/circle/mediums/bash/index.js";
import { bashStep, castBash, noBwrap } from "./bash-helpers.js";
import { needs } from "../support/needs.js";

/** One bash turn run straight through the medium, so the step's isError is visible. */
async function step(command: string, sandbox: SandboxMode, wards = [{ max_turns: 3 }]) {
  const root = mkdtempSync(join(tmpdir(), "bash-step-"));
  writeFileSync(join(root, "a.txt"), "alpha");
  const circle = new Circle({
    medium: createBashMedium({ root, writable: false, sandbox }),
    gates: [doneGate(), readGate({ root })],
    wards,
  });
  return bashStep(circle, command);
}

describe("bash medium (seed 002 Medium)", () => {
  it("sandbox: passthrough runs `echo hello` and the next turn observes its stdout; validate warns", async () => {
    const { turns, result, warnings } = await castBash({
      commands: ["echo hello", 'done "seen"'],
      circle: "  sandbox: passthrough",
    });
    expect(turns[0]!.observation).toBe("hello\n[exit 0]");
    expect(result).toMatchObject({ status: "terminated", result: "seen" });
    expect(warnings.map((w) => w.message).join("\n")).toMatch(
      /passthrough runs every shell command .* no OS sandbox/,
    );
  });

  it("presents one tool, bash, with tool_choice required, and the gates as commands", () => {
    const root = mkdtempSync(join(tmpdir(), "bash-present-"));
    const medium = createBashMedium({ root, writable: false, sandbox: "passthrough" });
    const circle = new Circle({
      medium,
      gates: [doneGate(), readGate({ root })],
      wards: [{ max_turns: 1 }],
    });
    const p = circle.present();
    expect(p.tools.map((t) => t.name)).toEqual(["bash"]);
    expect(p.toolChoice).toBe("required");
    expect(p.capability).toContain('done "answer"');
    expect(p.capability).toContain("read <path>");
  });

  it("a non-zero exit is an error observation, with the exit code", async () => {
    const out = await step("echo to-err >&2; exit 3", "passthrough");
    expect(out.isError).toBe(true);
    expect(out.observation).toBe("[stderr]\nto-err\n[exit 3]");
    expect((await step("true", "passthrough")).isError).toBe(false);
  });

  needs(noBwrap).it(
    `runs in bubblewrap: commands start in the root, done ends the loop (in bubblewrap)`,
    async () => {
      const { turns, result } = await castBash({
        commands: ["pwd; cat a.txt; echo $HOME", 'done "the answer"; echo after'],
        circle: "  root: ./work",
        files: { "work/a.txt": "alpha\n" },
      });
      expect(turns[0]!.observation).toBe("/work\nalpha\n/tmp\n[exit 0]");
      expect(result).toMatchObject({ status: "terminated", result: "the answer", turns: 2 });
      expect(turns[1]!.gate_calls).toEqual([
        {
          gate_name: "done",
          arguments: '{"answer":"the answer"}',
          result: "the answer",
          is_error: false,
          started_at: expect.any(String) as string,
          duration_ms: expect.any(Number) as number,
        },
      ]);
      expect(turns[1]!.observation).not.toContain("after"); // LOOP-3: nothing runs after done
    },
  );

  needs(noBwrap).it(
    `nothing after done runs, however fast the shell goes on (LOOP-3; 20 casts) (in bubblewrap)`,
    async () => {
      for (let i = 0; i < 20; i++) {
        const { turns, result } = await castBash({
          commands: ['done "x"; echo after'],
          circle: "  root: ./work",
          files: { "work/a.txt": "alpha\n" },
        });
        expect(result).toMatchObject({ status: "terminated", result: "x" });
        expect(turns[0]!.observation, `cast ${i}`).not.toContain("after");
      }
    },
  );

  needs(noBwrap).it(
    `gates on PATH call back to the host and are recorded in the turn (in bubblewrap)`,
    async () => {
      const { turns } = await castBash({
        commands: [
          "read a.txt; read missing.txt; echo rc=$?; printf 'x\\ny\\n' | while read l; do echo got $l; done; gate echo '{\"text\":\"hi\"}'",
        ],
        circle: "  root: ./work",
        gates: "[done, echo, { read: { root: ./work } }]",
        files: { "work/a.txt": "alpha" },
      });
      const t = turns[0]!;
      expect(t.observation).toBe(
        'alpha\nrc=1\ngot x\ngot y\nhi\n[stderr]\nerror: ENOENT: no such file or directory, "missing.txt"\n[exit 0]',
      );
      expect(t.gate_calls.map((g) => [g.gate_name, g.is_error])).toEqual([
        ["read", false],
        ["read", true],
        ["echo", false],
      ]);
    },
  );

  needs(noBwrap).it(`stdout is capped at max_output_kb with a marker (in bubblewrap)`, async () => {
    const out = await step("head -c 5000 /dev/zero | tr '\\0' x", "bwrap", [
      { max_turns: 1 },
      { max_output_kb: 1 } as never,
    ]);
    expect(out.observation).toBe(
      `${"x".repeat(1024)}\n[stdout cut at 1 KB (max_output_kb)]\n[exit 0]`,
    );
  });

  it("passthrough and bwrap are the only sandboxes; bash keys need the bash medium", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bash-keys-"));
    writeFileSync(
      join(dir, "s.yaml"),
      "llm: { provider: scripted }\nidentity: {}\ncircle:\n  root: .\n  gates: [done]\n  wards: [{ max_turns: 1 }]\n",
    );
    const { loadSpell } = await import("../../src/spell/index.js");
    await expect(loadSpell(join(dir, "s.yaml"), { loomPath: "memory" })).rejects.toThrow(
      /s\.yaml:\d+:\d+: circle\.root belongs to the bash medium/,
    );
  });
});
