import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { behaviorGate } from "../../src/circle/gates/index.js";
import { loadCircleState } from "../../src/spell/resolve-state.js";
import { namedArguments } from "../../src/circle/mediums/code/arguments.js";
import { codeCantrip, doneGate, failingGate, slowGate } from "./code-helpers.js";

describe("code medium: the loop", () => {
  it("keeps var, let, const and functions across turns (MEDIUM-3) and ends with a structured done", async () => {
    const { cantrip } = codeCantrip([
      "let a = 1; const b = { n: 2 }; var c = 3; function f() { return 4 }",
      "done({ sum: a + b.n + c + f(), list: [1, 2], ok: true })",
    ]);
    const result = await cantrip.cast("add things");
    expect(result).toMatchObject({ terminated: true, turns: 2, reason: "done" });
    expect(result.result).toEqual({ sum: 10, list: [1, 2], ok: true });
  });

  it("keeps the sandbox of a summoned entity across sends (ENTITY-5)", async () => {
    const { cantrip } = codeCantrip([
      "var seen = ['first']; done(seen.length)",
      "seen.push('second'); done(seen)",
    ]);
    const entity = cantrip.summon();
    try {
      expect((await entity.send("one")).result).toBe(1);
      expect((await entity.send("two")).result).toEqual(["first", "second"]);
    } finally {
      entity.dispose();
    }
  });

  it("presents one js tool with tool_choice required and the capability text between identity and intent (§4.6)", async () => {
    const { cantrip, llm } = codeCantrip(["done(1)"]);
    await cantrip.cast("the intent");
    const q = llm.invocations[0]!;
    expect(q.tools.map((t) => t.name)).toEqual(["js"]);
    expect(q.toolChoice).toBe("required");
    expect(q.messages.map((m) => m.role)).toEqual(["system", "system", "user"]);
    expect(q.messages[1]!.content).toContain("echo(text: string)");
    expect(q.messages[1]!.content).toContain("done(answer)");
    expect(q.messages[2]!.content).toBe("the intent");
  });

  it("numbers stay numbers and strings stay strings through done and submit_answer", async () => {
    expect((await codeCantrip(["done(42)"]).cantrip.cast("x")).result).toBe(42);
    expect((await codeCantrip(["submit_answer('42')"]).cantrip.cast("x")).result).toBe("42");
    expect((await codeCantrip(["done({ answer: 7 })"]).cantrip.cast("x")).result).toBe(7);
    expect((await codeCantrip(["done(null)"]).cantrip.cast("x")).result).toBeNull();
  });

  it("ends a text-only reply like any medium (LOOP-6), and reminds when done is required", async () => {
    expect((await codeCantrip([{ content: "all done" }]).cantrip.cast("x")).result).toBe(
      "all done",
    );
    const { cantrip } = codeCantrip([{ content: "thinking" }, "done(2)"], {
      wards: [{ max_turns: 5 }, { require_done_tool: true }],
    });
    const result = await cantrip.cast("x");
    expect(result).toMatchObject({ result: 2, turns: 2 });
  });

  it("does not end on a malformed done (LOOP-7)", async () => {
    const { cantrip } = codeCantrip(["done()", "done('fixed')"]);
    const result = await cantrip.cast("x");
    expect(result).toMatchObject({ result: "fixed", turns: 2 });
    const first = result.loom.turns()[0]!;
    expect(first.terminated).toBe(false);
    expect(first.gate_calls[0]).toMatchObject({ gate_name: "done", is_error: true });
    expect(first.observation).toContain("missing required argument");
  });

  it("stops the code after done: later gate calls do not run (LOOP-3)", async () => {
    const { cantrip } = codeCantrip(["done('first'); for (let i = 0; i < 1e6; i++) echo('after')"]);
    const result = await cantrip.cast("x");
    expect(result.result).toBe("first");
    expect(result.loom.turns()[0]!.gate_calls.map((g) => g.gate_name)).toEqual(["done"]);
  });
});

describe("code medium: gates as functions", () => {
  it("takes positional arguments or one object of named arguments", async () => {
    const { cantrip } = codeCantrip(["done([echo('hi'), echo({ text: 'hi' })])"]);
    const result = await cantrip.cast("x");
    expect(result.result).toEqual(["hi", "hi"]);
    const calls = result.loom.turns()[0]!.gate_calls;
    expect(calls.slice(0, 2).map((c) => c.arguments)).toEqual(['{"text":"hi"}', '{"text":"hi"}']);
  });

  it("passes a string argument whole: NUL, unpaired surrogates, U+FFFD, long text", async () => {
    // One string crosses without JSON; the copy out of the sandbox must not lose a character.
    const texts = ["a\u0000b", "\ud800", "x".repeat(40) + "\udc00y", "\ud83d\ude00", "\ufffd"];
    texts.push("\ud800a\u0000b", "é", "long ".repeat(1000), 'line\n\t"q"\\');
    const code = texts.map((t) => `echo(${JSON.stringify(t)})`).join("; ");
    const { cantrip } = codeCantrip([`${code}; done(${JSON.stringify(texts[0])})`]);
    const result = await cantrip.cast("x");
    expect(result.result).toBe(texts[0]);
    const calls = result.loom.turns()[0]!.gate_calls;
    expect(calls.slice(0, texts.length).map((c) => c.arguments)).toEqual(
      texts.map((text) => JSON.stringify({ text })),
    );
  });

  it("maps arguments by schema order", () => {
    const gate = behaviorGate({
      name: "g",
      parameters: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "number" } },
        required: ["a"],
      },
      behavior: {},
    });
    expect(namedArguments(gate, "g", ["x", 2])).toEqual({ a: "x", b: 2 });
    expect(namedArguments(gate, "g", [{ a: "x" }])).toEqual({ a: "x" });
    expect(namedArguments(gate, "g", [{ c: 1 }])).toEqual({ a: { c: 1 } });
    expect(namedArguments(gate, "g", ["x", null])).toEqual({ a: "x" });
    expect(namedArguments(gate, "g", [1, 2, 3])).toMatch(/takes \(a, b\)/);
    expect(namedArguments(doneGate(), "done", [{ a: 1 }])).toEqual({ answer: { a: 1 } });
  });

  it("makes an async host gate look synchronous to the code (CIRCLE-3)", async () => {
    const { cantrip } = codeCantrip(["const r = slow_gate(); done(typeof r + ':' + r)"], {
      gates: [doneGate(), slowGate(20, "late")],
    });
    expect((await cantrip.cast("x")).result).toBe("string:late");
  });

  it("throws a gate failure as an Error the code catches, and records it (CIRCLE-5)", async () => {
    const { cantrip } = codeCantrip(
      ["let msg; try { failing_gate() } catch (e) { msg = e.message } done(msg)"],
      { gates: [doneGate(), failingGate("disk on fire")] },
    );
    const result = await cantrip.cast("x");
    expect(result.result).toBe("disk on fire");
    expect(result.loom.turns()[0]!.gate_calls[0]).toMatchObject({
      gate_name: "failing_gate",
      is_error: true,
      result: "disk on fire",
    });
  });

  it("refuses gate calls from promise callbacks instead of crashing the sandbox", async () => {
    const { cantrip } = codeCantrip([
      "var late = 'unset'; Promise.resolve().then(() => { try { echo('x') } catch (e) { late = e.message } }); 1",
      "done(late)",
    ]);
    expect(String((await cantrip.cast("x")).result)).toMatch(/only be called by the running code/);
  });
});

describe("code medium: the observation", () => {
  it("is one composite object per turn: every gate call in order, console, last value (CIRCLE-7)", async () => {
    const { cantrip, llm } = codeCantrip([
      "console.log('hello', { a: 1 }); echo('one'); echo('two'); 6 * 7",
      "done(1)",
    ]);
    const result = await cantrip.cast("x");
    const turn = result.loom.turns()[0]!;
    expect(turn.gate_calls.map((g) => g.result)).toEqual(["one", "two"]);
    expect(turn.observation).toContain("1. echo");
    expect(turn.observation).toContain("2. echo");
    expect(turn.observation).toContain('hello {"a":1}');
    expect(turn.observation).toContain("result: 42");
    const tool = llm.invocations[1]!.messages.at(-1)!;
    expect(tool).toMatchObject({ role: "tool", content: turn.observation });
  });

  it("shows an error with its stack, and the entity can go on", async () => {
    const { cantrip } = codeCantrip(["function f() { return missing.x } f()", "done('recovered')"]);
    const result = await cantrip.cast("x");
    const obs = result.loom.turns()[0]!.observation;
    expect(obs).toContain("ReferenceError");
    expect(obs).toContain("missing");
    expect(obs).toMatch(/at f \(run-1\.js/);
    expect(result.result).toBe("recovered");
  });

  it("summarizes large values as type, size and a preview (viewport principle)", async () => {
    const { cantrip } = codeCantrip([
      "var big = Array.from({ length: 1000 }, (_, i) => ({ i })); big",
      "echo('x'.repeat(5000)); done(big.length)",
    ]);
    const result = await cantrip.cast("x");
    const [first, second] = result.loom.turns();
    expect(first!.observation).toMatch(/\[Result: array, 1000 items, \d+ chars\]/);
    expect(first!.observation.length).toBeLessThan(400);
    expect(second!.observation).toMatch(/\[Result: 5000 chars\]/);
    expect(second!.gate_calls[0]!.result).toHaveLength(5000); // the loom keeps everything
    expect(result.result).toBe(1000);
  });

  it("hints when a top-level let is declared twice and keeps the first value", async () => {
    const { cantrip } = codeCantrip(["let n = 1", "let n = 2", "done(n)"]);
    const result = await cantrip.cast("x");
    expect(result.loom.turns()[1]!.observation).toContain("redeclaration");
    expect(result.result).toBe(1);
  });
});

describe("code medium: circle state", () => {
  it("injects data as variables, not into the prompt (§3.3)", async () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, v: i * 2 }));
    const { cantrip, llm } = codeCantrip(
      ["done(rows.reduce((s, r) => s + r.v, 0) + notes.length)"],
      { state: { rows, notes: "abc" } },
    );
    expect((await cantrip.cast("sum")).result).toBe(249500 + 3);
    const capability = llm.invocations[0]!.messages[1]!.content ?? "";
    expect(capability).toContain("rows (array, 500 items)");
    expect(capability).not.toContain('"v":');
  });

  it("loads $file references relative to the spell: json, yaml and text", () => {
    const dir = mkdtempSync(join(tmpdir(), "state-"));
    writeFileSync(join(dir, "a.json"), '{"x":1}');
    writeFileSync(join(dir, "b.yaml"), "- 1\n- 2\n");
    writeFileSync(join(dir, "c.txt"), "plain");
    const state = loadCircleState(
      { a: { $file: "a.json" }, b: "$file:b.yaml", c: { $file: "c.txt" }, d: 4 },
      dir,
    );
    expect(state).toEqual({ a: { x: 1 }, b: [1, 2], c: "plain", d: 4 });
    expect(() => loadCircleState({ e: { $file: "nope.json" } }, dir)).toThrow(
      /cannot read nope.json/,
    );
    expect(() => loadCircleState({ "bad-name": 1 }, dir)).toThrow(/not a JavaScript variable name/);
  });
});

describe("code medium: tool misuse", () => {
  it("answers a call of another tool with an error observation", async () => {
    const { cantrip } = codeCantrip([
      { tool_calls: [{ gate: "echo", args: { text: "x" } }] },
      "done(1)",
    ]);
    const result = await cantrip.cast("x");
    expect(result.loom.turns()[0]!.observation).toMatch(/only tool is js/);
    expect(result.result).toBe(1);
  });
});
