/**
 * Issue 25: gates that ask before they act, through the TypeScript API's `onApproval`. Every
 * medium reaches gates through Circle.callGate, where the question is asked; these casts run
 * the real loader, circle and mediums with the scripted provider.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalRecord, ApprovalRequest } from "../../src/core/approval.js";
import { loadSpell } from "../../src/spell/index.js";

function spellDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "approvals-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const load = (dir: string) => loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });

/** A writer whose every write asks: it writes out.txt, then ends with what the write said. */
const WRITER = (approve = "[{ gate: write }]", more = "") => `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: write, args: { path: out.txt, content: hello } }]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: { system_prompt: You write. }
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 4 }]
  approve: ${approve}
${more}`;

const approvalsOf = (turn: { metadata: Record<string, unknown> }) =>
  (turn.metadata["approvals"] ?? []) as ApprovalRecord[];

describe("approvals through the API's onApproval", () => {
  it("asks before a write and writes once allowed; the turn records question, answer, who, how long", async () => {
    const dir = spellDir({ "spell.yaml": WRITER() });
    const asked: ApprovalRequest[] = [];
    const loaded = await load(dir);
    const result = await loaded.cantrip!.cast("write it", {
      onApproval: (req) => {
        // Nothing runs before the answer.
        expect(existsSync(join(dir, "out.txt"))).toBe(false);
        asked.push(req);
        return true;
      },
    });
    expect(result.status).toBe("terminated");
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("hello");
    expect(asked.map((r) => [r.gate, JSON.parse(r.arguments) as unknown])).toEqual([
      ["write", { path: "out.txt", content: "hello" }],
    ]);
    const [first] = result.loom.turns();
    const [record] = approvalsOf(first!);
    expect(record).toMatchObject({ gate: "write", allowed: true, by: "api", rule: "gate write" });
    expect(record!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(first!.gate_calls[0]!.is_error).toBe(false);
  });

  it("a denial is an error observation naming the gate and why; nothing is written", async () => {
    const dir = spellDir({ "spell.yaml": WRITER() });
    const result = await (await load(dir)).cantrip!.cast("write it", { onApproval: () => false });
    expect(existsSync(join(dir, "out.txt"))).toBe(false);
    const call = result.loom.turns()[0]!.gate_calls[0]!;
    expect(call).toMatchObject({ gate_name: "write", is_error: true });
    expect(call.result).toMatch(/^write was not run: approval denied \(denied by the user/);
  });

  it("fails closed: no approver, a malformed answer, a throwing approver, a timeout", async () => {
    const cases: [string, Parameters<typeof castWith>[1], RegExp, string][] = [
      ["none", undefined, /no approver/, "none"],
      ["malformed", () => "yes" as unknown as boolean, /malformed answer/, "none"],
      [
        "throws",
        () => {
          throw new Error("client closed");
        },
        /the approver failed: client closed/,
        "none",
      ],
      ["never", () => new Promise<boolean>(() => {}), /timed out/, "timeout"],
    ];
    for (const [name, approver, why, by] of cases) {
      const dir = spellDir({ "spell.yaml": WRITER(undefined, "  approval_timeout_ms: 200") });
      const result = await castWith(dir, approver);
      expect(existsSync(join(dir, "out.txt")), name).toBe(false);
      const turn = result.loom.turns()[0]!;
      expect(turn.gate_calls[0]!.result, name).toMatch(why);
      expect(approvalsOf(turn)[0], name).toMatchObject({ allowed: false, by });
    }
  });

  it("unless: argument globs that match need no ask; gate globs ask for every name they match", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm:
  provider: scripted
  responses:
    - tool_calls:
        - { gate: echo, args: { text: "https://api.example.org/repos/acme/x" } }
        - { gate: echo, args: { text: "https://evil.example.org/" } }
    - tool_calls: [{ gate: done, args: { answer: ok } }]
identity: {}
circle:
  gates: [done, echo]
  wards: [{ max_turns: 3 }]
  approve:
    - gate: "ec*"
      unless: { text: "https://api.example.org/repos/acme/*" }
`,
    });
    const asked: string[] = [];
    const result = await (
      await load(dir)
    ).cantrip!.cast("go", {
      onApproval: (r) => {
        asked.push((JSON.parse(r.arguments) as { text: string }).text);
        return false;
      },
    });
    expect(asked).toEqual(["https://evil.example.org/"]);
    const calls = result.loom.turns()[0]!.gate_calls;
    expect(calls.map((c) => c.is_error)).toEqual([false, true]);
  });

  it("a child cannot loosen its parent's approvals: the parent's rule asks for the child's write", async () => {
    const dir = spellDir({
      "child.yaml": `
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: write, args: { path: child.txt, content: c } }] }, { tool_calls: [{ gate: done, args: { answer: child done } }] }] }
identity: {}
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 3 }]
  approve: [{ gate: write, unless: { path: "*" } }]
`,
      "spell.yaml": `
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: call_entity, args: { intent: go } }] }, { tool_calls: [{ gate: done, args: { answer: parent done } }] }] }
identity: {}
circle:
  gates: [done, { call_entity: { spell: ./child.yaml } }]
  wards: [{ max_turns: 3 }]
  approve: [{ gate: write }]
`,
    });
    const asked: ApprovalRequest[] = [];
    const result = await (
      await load(dir)
    ).cantrip!.cast("delegate", {
      onApproval: (r) => {
        asked.push(r);
        return false;
      },
    });
    expect(asked.map((r) => [r.gate, r.depth])).toEqual([["write", 1]]);
    expect(existsSync(join(dir, "child.txt"))).toBe(false);
    const childTurn = result.loom.turns().find((t) => t.entity_id !== result.entityId)!;
    expect(childTurn.gate_calls[0]!.result).toMatch(/write was not run: approval denied/);
    expect(approvalsOf(childTurn)[0]).toMatchObject({ gate: "write", allowed: false });
  });

  it("code medium: a gate waits for its answer while a cancel arrives; the cast ends, the gate never ran", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm:
  provider: scripted
  responses:
    - code: "write({ path: 'out.txt', content: 'x' }); 'after'"
identity: {}
circle:
  medium: code
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 3 }]
  approve: [{ gate: write }]
`,
    });
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const result = await (
      await load(dir)
    ).cantrip!.cast("write", {
      signal: controller.signal,
      onApproval: (r) => {
        seen = r.signal;
        // The question is open: the sandbox waits in the gate; the cancel arrives now.
        setImmediate(() => controller.abort("interrupted"));
        return new Promise<boolean>(() => {});
      },
    });
    expect(result).toMatchObject({ status: "truncated", reason: "interrupted" });
    expect(seen?.aborted).toBe(true);
    expect(existsSync(join(dir, "out.txt"))).toBe(false);
    const turn = result.loom.turns()[0]!;
    expect(approvalsOf(turn)[0]).toMatchObject({ gate: "write", allowed: false, by: "cancel" });
  });

  it("bash medium: a command matching a command: rule asks; denied, it never runs", async () => {
    const dir = spellDir({
      "spell.yaml": `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: bash, args: { command: "touch made-by-bash" } }]
    - tool_calls: [{ gate: bash, args: { command: "echo fine" } }]
    - tool_calls: [{ gate: bash, args: { command: "done ok" } }]
identity: {}
circle:
  medium: bash
  sandbox: passthrough
  writable: true
  gates: [done]
  wards: [{ max_turns: 4 }]
  approve: [{ command: "touch *" }]
`,
    });
    const asked: string[] = [];
    const result = await (
      await load(dir)
    ).cantrip!.cast("go", {
      onApproval: (r) => {
        asked.push((JSON.parse(r.arguments) as { command: string }).command);
        return false;
      },
    });
    expect(asked).toEqual(["touch made-by-bash"]);
    expect(existsSync(join(dir, "made-by-bash"))).toBe(false);
    const [first, second] = result.loom.turns();
    expect(first!.observation).toMatch(/bash was not run: approval denied/);
    expect(second!.observation).toMatch(/fine/);
  });

  it("an approve: item names a gate or a command, not both, at its place", async () => {
    const dir = spellDir({ "spell.yaml": WRITER('[{ gate: write, command: "x*" }]') });
    await expect(load(dir)).rejects.toThrow(/spell\.yaml:\d+:\d+: an approve: item names either/);
  });
});

async function castWith(
  dir: string,
  approver: ((r: ApprovalRequest) => boolean | Promise<boolean>) | undefined,
) {
  const loaded = await load(dir);
  return loaded.cantrip!.cast("write it", approver ? { onApproval: approver } : {});
}
